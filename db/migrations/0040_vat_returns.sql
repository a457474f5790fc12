CREATE TABLE `vat_returns` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`period` text NOT NULL,
	`period_from` text NOT NULL,
	`period_to` text NOT NULL,
	`grids` text NOT NULL,
	`xml` text NOT NULL,
	`ask_restitution` integer NOT NULL,
	`filed_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vat_returns_org_period` ON `vat_returns` (`organization_id`,`period`);--> statement-breakpoint
ALTER TABLE `expenses` ADD `self_assessed_vat_rate_id` text REFERENCES vat_rates(id);--> statement-breakpoint
ALTER TABLE `invoice_lines` ADD `supply_type` text;