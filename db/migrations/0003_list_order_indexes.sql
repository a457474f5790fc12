DROP INDEX `audit_org_resource`;--> statement-breakpoint
DROP INDEX `audit_org_action`;--> statement-breakpoint
CREATE INDEX `audit_org_type` ON `audit_log` (`organization_id`,`resource_type`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_org_resource` ON `audit_log` (`organization_id`,`resource_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_org_action` ON `audit_log` (`organization_id`,`action`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `suppliers_org_email`;--> statement-breakpoint
DROP INDEX `suppliers_org_lower_name`;--> statement-breakpoint
CREATE INDEX `suppliers_org_email` ON `suppliers` (`organization_id`,`email`,"name" collate nocase,`id`);--> statement-breakpoint
CREATE INDEX `suppliers_org_lower_name` ON `suppliers` (`organization_id`,lower(trim("name")),`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `expenses_org_category_id` ON `expenses` (`organization_id`,`category`,`id`);--> statement-breakpoint
CREATE INDEX `expenses_org_status_id` ON `expenses` (`organization_id`,`status`,`id`);