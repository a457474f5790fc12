DROP INDEX `deliveries_webhook_created`;--> statement-breakpoint
CREATE INDEX `deliveries_webhook_status` ON `webhook_deliveries` (`organization_id`,`webhook_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `deliveries_webhook_event` ON `webhook_deliveries` (`organization_id`,`webhook_id`,`event`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `deliveries_webhook_created` ON `webhook_deliveries` (`organization_id`,`webhook_id`,`created_at`,`id`);