CREATE TABLE `server_keys` (
	`name` text PRIMARY KEY NOT NULL,
	`key` blob NOT NULL
);
--> statement-breakpoint
-- custom
-- The key list cursors are sealed with: 32 random bytes, made here once per database.
INSERT INTO `server_keys` (`name`, `key`) VALUES ('cursor', randomblob(32));
