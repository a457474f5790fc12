DROP INDEX `customers_org_email`;--> statement-breakpoint
CREATE INDEX `customers_org_email` ON `customers` (`organization_id`,`email`,"name" collate nocase,`id`);