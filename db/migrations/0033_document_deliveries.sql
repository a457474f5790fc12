CREATE TABLE `document_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`subject` text NOT NULL,
	`invoice_id` text,
	`reminder_id` text,
	`channel` text NOT NULL,
	`recipients` text NOT NULL,
	`message` text,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`lease_until` integer,
	`leased_by` text,
	`last_error` text,
	`provider_reference` text,
	`accepted_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `document_deliveries_due` ON `document_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `document_deliveries_invoice` ON `document_deliveries` (`organization_id`,`invoice_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `document_deliveries_reminder` ON `document_deliveries` (`organization_id`,`reminder_id`);--> statement-breakpoint
CREATE TABLE `document_delivery_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`delivery_id` text NOT NULL,
	`attempted_at` text NOT NULL,
	`outcome` text NOT NULL,
	`detail` text,
	`duration_ms` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`delivery_id`) REFERENCES `document_deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `document_delivery_attempts_delivery` ON `document_delivery_attempts` (`delivery_id`,`attempted_at`);--> statement-breakpoint
ALTER TABLE `customers` ADD `preferred_channel` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `mail_sender_name` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `mail_reply_to` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `smtp_url` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `send_on_finalize` text;--> statement-breakpoint
ALTER TABLE `suppliers` ADD `preferred_channel` text;