ALTER TABLE `customers` ADD `external_id` text;--> statement-breakpoint
ALTER TABLE `customers` ADD `metadata` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
CREATE INDEX `customers_org_vat_number` ON `customers` (`organization_id`,`vat_number`,"name" collate nocase,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `customers_org_external_id` ON `customers` (`organization_id`,`external_id`) WHERE "customers"."external_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `expenses` ADD `external_id` text;--> statement-breakpoint
ALTER TABLE `expenses` ADD `metadata` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `expenses_org_external_id` ON `expenses` (`organization_id`,`external_id`) WHERE "expenses"."external_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `external_id` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `metadata` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_org_external_id` ON `invoices` (`organization_id`,`external_id`) WHERE "invoices"."external_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `invoices_org_order_reference` ON `invoices` (`organization_id`,`order_reference`,`issue_date`,`id`);--> statement-breakpoint
ALTER TABLE `suppliers` ADD `external_id` text;--> statement-breakpoint
ALTER TABLE `suppliers` ADD `metadata` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
CREATE INDEX `suppliers_org_vat_number` ON `suppliers` (`organization_id`,`vat_number`,"name" collate nocase,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `suppliers_org_external_id` ON `suppliers` (`organization_id`,`external_id`) WHERE "suppliers"."external_id" IS NOT NULL;