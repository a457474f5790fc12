CREATE TABLE `invoice_allowance_charges` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`invoice_id` text NOT NULL,
	`is_charge` integer NOT NULL,
	`amount_cents` integer NOT NULL,
	`base_cents` integer,
	`percent_bp` integer,
	`reason` text,
	`reason_code` text,
	`vat_rate_id` text,
	`vat_rate_bp` integer NOT NULL,
	`sort_order` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`vat_rate_id`) REFERENCES `vat_rates`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `invoice_allowance_charges_invoice` ON `invoice_allowance_charges` (`invoice_id`,`sort_order`);--> statement-breakpoint
DROP INDEX `invoices_org_awaiting_aging`;--> statement-breakpoint
ALTER TABLE `invoices` ADD `credited_cents` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `prices_include_vat` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `allowance_cents` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `charge_cents` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `invoices_org_awaiting_aging` ON `invoices` (`organization_id`,`currency`,`customer_id`,`due_date`,(CASE WHEN "type" = 'credit_note' THEN "paid_cents" + "credited_cents" - "total_cents" ELSE "total_cents" - "paid_cents" - "credited_cents" END),`issue_date`,`status`) WHERE "status" IN ('finalized', 'sent', 'partially_paid');--> statement-breakpoint
ALTER TABLE `bank_accounts` ADD `bic` text;--> statement-breakpoint
ALTER TABLE `expenses` ADD `due_date` text;--> statement-breakpoint
ALTER TABLE `invoice_lines` ADD `discount_percent_bp` integer;--> statement-breakpoint
ALTER TABLE `invoice_lines` ADD `discount_cents` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `invoice_lines` ADD `discount_reason` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `prices_include_vat` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `einvoice_business_customers` integer DEFAULT false NOT NULL;