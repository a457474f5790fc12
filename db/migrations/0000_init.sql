CREATE TABLE `accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`code` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`parent_id` text,
	`is_active` integer NOT NULL,
	`description` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_org_code` ON `accounts` (`organization_id`,`code`);--> statement-breakpoint
CREATE INDEX `accounts_org_name` ON `accounts` (`organization_id`,`name`,`id`);--> statement-breakpoint
CREATE INDEX `accounts_org_type` ON `accounts` (`organization_id`,`type`,`code`);--> statement-breakpoint
CREATE INDEX `accounts_org_parent` ON `accounts` (`organization_id`,`parent_id`,`code`);--> statement-breakpoint
CREATE INDEX `accounts_org_updated` ON `accounts` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`type` text NOT NULL,
	`user_id` text,
	`created_by_user_id` text,
	`name` text NOT NULL,
	`secret_hash` text NOT NULL,
	`abilities` text NOT NULL,
	`last_used_at` text,
	`expires_at` text,
	`revoked_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `api_tokens_org_type_created` ON `api_tokens` (`organization_id`,`type`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`action` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	`actor_type` text NOT NULL,
	`actor_id` text,
	`ip` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `audit_org_created` ON `audit_log` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_org_resource` ON `audit_log` (`organization_id`,`resource_type`,`resource_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `audit_org_action` ON `audit_log` (`organization_id`,`action`,`created_at`);--> statement-breakpoint
CREATE TABLE `bank_accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`iban` text NOT NULL,
	`bank_name` text,
	`currency` text NOT NULL,
	`balance_cents` integer NOT NULL,
	`is_active` integer NOT NULL,
	`account_id` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `bank_accounts_org_name` ON `bank_accounts` (`organization_id`,`name`,`id`);--> statement-breakpoint
CREATE INDEX `bank_accounts_org_updated` ON `bank_accounts` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE TABLE `contact_persons` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`email` text,
	`phone` text,
	`position` text,
	`is_primary` integer NOT NULL,
	`notes` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `contact_persons_customer` ON `contact_persons` (`customer_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `customers` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`email` text,
	`phone` text,
	`address` text,
	`city` text,
	`postal_code` text,
	`country` text,
	`vat_number` text,
	`currency` text,
	`payment_terms` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `customers_org_name` ON `customers` (`organization_id`,`name`,`id`);--> statement-breakpoint
CREATE INDEX `customers_org_created` ON `customers` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `customers_org_updated` ON `customers` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `customers_org_country` ON `customers` (`organization_id`,`country`,`name`);--> statement-breakpoint
CREATE INDEX `customers_org_currency` ON `customers` (`organization_id`,`currency`,`name`);--> statement-breakpoint
CREATE INDEX `customers_org_email` ON `customers` (`organization_id`,`email`);--> statement-breakpoint
CREATE TABLE `expenses` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`category` text NOT NULL,
	`description` text,
	`amount_cents` integer NOT NULL,
	`vat_cents` integer NOT NULL,
	`vat_rate_id` text,
	`date` text NOT NULL,
	`vendor` text,
	`supplier_id` text,
	`status` text NOT NULL,
	`currency` text NOT NULL,
	`rejection_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`vat_rate_id`) REFERENCES `vat_rates`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`supplier_id`) REFERENCES `suppliers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `expenses_org_date` ON `expenses` (`organization_id`,`date`,`id`);--> statement-breakpoint
CREATE INDEX `expenses_org_amount` ON `expenses` (`organization_id`,`amount_cents`,`id`);--> statement-breakpoint
CREATE INDEX `expenses_org_category` ON `expenses` (`organization_id`,`category`,`date`,`id`);--> statement-breakpoint
CREATE INDEX `expenses_org_status` ON `expenses` (`organization_id`,`status`,`date`,`id`);--> statement-breakpoint
CREATE INDEX `expenses_org_supplier` ON `expenses` (`organization_id`,`supplier_id`,`date`,`id`);--> statement-breakpoint
CREATE INDEX `expenses_org_currency` ON `expenses` (`organization_id`,`currency`,`date`,`id`);--> statement-breakpoint
CREATE INDEX `expenses_org_created` ON `expenses` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `expenses_org_updated` ON `expenses` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `expenses_supplier` ON `expenses` (`supplier_id`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`token_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`status_code` integer,
	`response_body` text,
	`response_headers` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`token_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_created` ON `idempotency_keys` (`created_at`);--> statement-breakpoint
CREATE TABLE `invoice_lines` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`invoice_id` text NOT NULL,
	`description` text NOT NULL,
	`quantity_cents` integer NOT NULL,
	`unit_price_cents` integer NOT NULL,
	`amount_cents` integer NOT NULL,
	`vat_rate_id` text,
	`vat_rate_bp` integer NOT NULL,
	`vat_cents` integer NOT NULL,
	`sort_order` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`vat_rate_id`) REFERENCES `vat_rates`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `invoice_lines_invoice` ON `invoice_lines` (`invoice_id`,`sort_order`);--> statement-breakpoint
CREATE TABLE `invoices` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`number` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`related_invoice_id` text,
	`issue_date` text NOT NULL,
	`due_date` text NOT NULL,
	`currency` text NOT NULL,
	`notes` text,
	`payment_terms` text,
	`subtotal_cents` integer NOT NULL,
	`vat_cents` integer NOT NULL,
	`total_cents` integer NOT NULL,
	`paid_cents` integer NOT NULL,
	`finalized_at` text,
	`sent_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_org_number` ON `invoices` (`organization_id`,`number`);--> statement-breakpoint
CREATE INDEX `invoices_org_issue` ON `invoices` (`organization_id`,`issue_date`,`id`);--> statement-breakpoint
CREATE INDEX `invoices_org_due` ON `invoices` (`organization_id`,`due_date`,`id`);--> statement-breakpoint
CREATE INDEX `invoices_org_total` ON `invoices` (`organization_id`,`total_cents`,`id`);--> statement-breakpoint
CREATE INDEX `invoices_org_status` ON `invoices` (`organization_id`,`status`,`issue_date`,`id`);--> statement-breakpoint
CREATE INDEX `invoices_org_type` ON `invoices` (`organization_id`,`type`,`issue_date`,`id`);--> statement-breakpoint
CREATE INDEX `invoices_org_customer` ON `invoices` (`organization_id`,`customer_id`,`issue_date`,`id`);--> statement-breakpoint
CREATE INDEX `invoices_org_currency` ON `invoices` (`organization_id`,`currency`,`issue_date`,`id`);--> statement-breakpoint
CREATE INDEX `invoices_org_created` ON `invoices` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `invoices_org_updated` ON `invoices` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `invoices_customer` ON `invoices` (`customer_id`);--> statement-breakpoint
CREATE TABLE `number_sequences` (
	`organization_id` text NOT NULL,
	`kind` text NOT NULL,
	`year` integer NOT NULL,
	`last_value` integer NOT NULL,
	PRIMARY KEY(`organization_id`, `kind`, `year`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`currency` text NOT NULL,
	`country` text NOT NULL,
	`api_access` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`invoice_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`payment_date` text NOT NULL,
	`payment_method` text NOT NULL,
	`reference` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `payments_invoice` ON `payments` (`invoice_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `suppliers` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`email` text,
	`phone` text,
	`address` text,
	`city` text,
	`postal_code` text,
	`country` text,
	`vat_number` text,
	`currency` text,
	`payment_terms` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `suppliers_org_name` ON `suppliers` (`organization_id`,`name`,`id`);--> statement-breakpoint
CREATE INDEX `suppliers_org_created` ON `suppliers` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `suppliers_org_updated` ON `suppliers` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `suppliers_org_country` ON `suppliers` (`organization_id`,`country`,`name`);--> statement-breakpoint
CREATE INDEX `suppliers_org_currency` ON `suppliers` (`organization_id`,`currency`,`name`);--> statement-breakpoint
CREATE INDEX `suppliers_org_email` ON `suppliers` (`organization_id`,`email`);--> statement-breakpoint
CREATE INDEX `suppliers_org_lower_name` ON `suppliers` (`organization_id`,lower(trim("name")));--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_org_email` ON `users` (`organization_id`,`email`);--> statement-breakpoint
CREATE TABLE `vat_rates` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`rate_bp` integer NOT NULL,
	`is_default` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `vat_rates_org` ON `vat_rates` (`organization_id`,`rate_bp`);--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`delivery_id` text NOT NULL,
	`attempted_at` text NOT NULL,
	`status_code` integer,
	`duration_ms` integer NOT NULL,
	`error` text,
	`response_body` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `attempts_delivery` ON `webhook_attempts` (`delivery_id`,`attempted_at`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`webhook_id` text NOT NULL,
	`event` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` integer,
	`lease_until` integer,
	`leased_by` text,
	`last_status_code` integer,
	`last_error` text,
	`delivered_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `deliveries_due` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `deliveries_webhook_created` ON `webhook_deliveries` (`webhook_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `deliveries_org_status` ON `webhook_deliveries` (`organization_id`,`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`is_active` integer NOT NULL,
	`secret` text NOT NULL,
	`last_triggered_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhooks_org_created` ON `webhooks` (`organization_id`,`created_at`,`id`);