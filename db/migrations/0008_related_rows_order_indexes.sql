DROP INDEX `contact_persons_customer`;--> statement-breakpoint
CREATE INDEX `contact_persons_customer` ON `contact_persons` (`customer_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `payments_invoice`;--> statement-breakpoint
CREATE INDEX `payments_invoice` ON `payments` (`invoice_id`,`created_at`,`id`);