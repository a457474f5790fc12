ALTER TABLE `customers` ADD `company_number` text;--> statement-breakpoint
ALTER TABLE `suppliers` ADD `company_number` text;--> statement-breakpoint
CREATE INDEX `suppliers_org_company_number` ON `suppliers` (`organization_id`,upper(replace(replace(replace("company_number", ' ', ''), '.', ''), '-', '')),`created_at`,`id`);
