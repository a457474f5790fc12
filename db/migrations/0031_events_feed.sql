CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` text NOT NULL,
	`type` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	`data` text NOT NULL,
	`links` text,
	`payment_id` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `events_org_id` ON `events` (`organization_id`,`id`);--> statement-breakpoint
CREATE INDEX `events_org_type` ON `events` (`organization_id`,`type`,`id`);--> statement-breakpoint
CREATE INDEX `events_org_resource` ON `events` (`organization_id`,`resource_id`,`id`);--> statement-breakpoint
CREATE INDEX `events_created` ON `events` (`created_at`);