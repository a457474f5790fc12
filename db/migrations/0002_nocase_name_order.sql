DROP INDEX `accounts_org_name`;--> statement-breakpoint
CREATE INDEX `accounts_org_name` ON `accounts` (`organization_id`,"name" collate nocase,`id`);--> statement-breakpoint
DROP INDEX `bank_accounts_org_name`;--> statement-breakpoint
CREATE INDEX `bank_accounts_org_name` ON `bank_accounts` (`organization_id`,"name" collate nocase,`id`);--> statement-breakpoint
DROP INDEX `customers_org_name`;--> statement-breakpoint
DROP INDEX `customers_org_country`;--> statement-breakpoint
DROP INDEX `customers_org_currency`;--> statement-breakpoint
CREATE INDEX `customers_org_name` ON `customers` (`organization_id`,"name" collate nocase,`id`);--> statement-breakpoint
CREATE INDEX `customers_org_country` ON `customers` (`organization_id`,`country`,"name" collate nocase,`id`);--> statement-breakpoint
CREATE INDEX `customers_org_currency` ON `customers` (`organization_id`,`currency`,"name" collate nocase,`id`);--> statement-breakpoint
DROP INDEX `suppliers_org_name`;--> statement-breakpoint
DROP INDEX `suppliers_org_country`;--> statement-breakpoint
DROP INDEX `suppliers_org_currency`;--> statement-breakpoint
CREATE INDEX `suppliers_org_name` ON `suppliers` (`organization_id`,"name" collate nocase,`id`);--> statement-breakpoint
CREATE INDEX `suppliers_org_country` ON `suppliers` (`organization_id`,`country`,"name" collate nocase,`id`);--> statement-breakpoint
CREATE INDEX `suppliers_org_currency` ON `suppliers` (`organization_id`,`currency`,"name" collate nocase,`id`);