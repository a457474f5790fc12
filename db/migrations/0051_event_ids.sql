CREATE TABLE `__new_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` text NOT NULL,
	`type` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	`data` text NOT NULL,
	`links` text,
	`payment_id` text,
	`seq` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- the events kept keep the ids clients have seen (seq = the former global id), so an `after` saved before the upgrade resumes where it was (docs/events.md#event-ids)
INSERT INTO `__new_events` (`id`, `organization_id`, `type`, `resource_type`, `resource_id`, `data`, `links`, `payment_id`, `seq`, `created_at`)
SELECT `id`, `organization_id`, `type`, `resource_type`, `resource_id`, `data`, `links`, `payment_id`, `id`, `created_at` FROM `events`;--> statement-breakpoint
DROP TABLE `events`;--> statement-breakpoint
ALTER TABLE `__new_events` RENAME TO `events`;--> statement-breakpoint
CREATE UNIQUE INDEX `events_org_seq` ON `events` (`organization_id`,`seq`);--> statement-breakpoint
CREATE INDEX `events_org_type` ON `events` (`organization_id`,`type`,`seq`);--> statement-breakpoint
CREATE INDEX `events_org_resource` ON `events` (`organization_id`,`resource_id`,`seq`);--> statement-breakpoint
CREATE INDEX `events_created` ON `events` (`created_at`);--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `event_id` integer;--> statement-breakpoint
-- custom
-- each organisation's event counter goes on from its last id kept, so new ids follow the old ones
INSERT INTO `number_sequences` (`organization_id`, `kind`, `year`, `last_value`)
SELECT `organization_id`, 'event', 0, max(`seq`) FROM `events` GROUP BY `organization_id`;
