CREATE TABLE `reminder_policies` (
	`organization_id` text PRIMARY KEY NOT NULL,
	`enabled` integer NOT NULL,
	`channel` text NOT NULL,
	`levels` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `reminders` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`invoice_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`level` integer NOT NULL,
	`days_after_due` integer NOT NULL,
	`run_date` text NOT NULL,
	`channel` text NOT NULL,
	`skipped` integer NOT NULL,
	`language` text NOT NULL,
	`amount_due_cents` integer NOT NULL,
	`interest_cents` integer NOT NULL,
	`compensation_cents` integer NOT NULL,
	`interest_note_id` text,
	`delivery_id` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`interest_note_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reminders_invoice_level` ON `reminders` (`invoice_id`,`level`);--> statement-breakpoint
CREATE INDEX `reminders_org_created` ON `reminders` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `reminders_org_invoice` ON `reminders` (`organization_id`,`invoice_id`,`level`);--> statement-breakpoint
ALTER TABLE `customers` ADD `reminders_paused` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `customers` ADD `reminders_paused_reason` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `reminders_paused` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `reminders_paused_reason` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `timezone` text DEFAULT 'Europe/Brussels' NOT NULL;--> statement-breakpoint
ALTER TABLE `suppliers` ADD `reminders_paused` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `suppliers` ADD `reminders_paused_reason` text;