CREATE TABLE `recurring_invoice_periods` (
	`organization_id` text NOT NULL,
	`template_id` text NOT NULL,
	`period_start` text NOT NULL,
	`period_end` text NOT NULL,
	`invoice_id` text,
	`issue_date` text NOT NULL,
	`caught_up` integer NOT NULL,
	`finalize_error` text,
	`generated_at` text NOT NULL,
	PRIMARY KEY(`template_id`, `period_start`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`template_id`) REFERENCES `recurring_invoices`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE TABLE `recurring_invoices` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`lines` text NOT NULL,
	`currency` text,
	`prices_include_vat` integer,
	`notes` text,
	`payment_terms` text,
	`payment_days` integer NOT NULL,
	`buyer_reference` text,
	`order_reference` text,
	`interval` text NOT NULL,
	`every` integer NOT NULL,
	`day_of_period` integer NOT NULL,
	`start_date` text NOT NULL,
	`end_date` text,
	`count` integer,
	`auto_finalize` integer NOT NULL,
	`auto_send` text,
	`status` text NOT NULL,
	`next_issue_date` text,
	`generated_count` integer DEFAULT 0 NOT NULL,
	`last_run_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `recurring_invoices_org_created` ON `recurring_invoices` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `recurring_invoices_org_updated` ON `recurring_invoices` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `recurring_invoices_org_status` ON `recurring_invoices` (`organization_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `recurring_invoices_org_customer` ON `recurring_invoices` (`organization_id`,`customer_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `recurring_invoices_due` ON `recurring_invoices` (`next_issue_date`) WHERE "status" = 'active';--> statement-breakpoint
ALTER TABLE `invoices` ADD `service_period_start` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `service_period_end` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `recurring_invoice_id` text;--> statement-breakpoint
CREATE INDEX `invoices_org_recurring` ON `invoices` (`organization_id`,`recurring_invoice_id`) WHERE "invoices"."recurring_invoice_id" IS NOT NULL;