CREATE TABLE `payment_run_items` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`payment_run_id` text NOT NULL,
	`expense_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`end_to_end_id` text NOT NULL,
	`reference` text,
	`creditor_name` text NOT NULL,
	`creditor_iban` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`payment_run_id`) REFERENCES `payment_runs`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`expense_id`) REFERENCES `expenses`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payment_run_items_run` ON `payment_run_items` (`payment_run_id`,`id`);--> statement-breakpoint
CREATE INDEX `payment_run_items_expense` ON `payment_run_items` (`expense_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `payment_run_items_org_end_to_end` ON `payment_run_items` (`organization_id`,`end_to_end_id`);--> statement-breakpoint
CREATE TABLE `payment_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`bank_account_id` text NOT NULL,
	`message_id` text NOT NULL,
	`due_by` text NOT NULL,
	`execution_date` text NOT NULL,
	`currency` text NOT NULL,
	`total_cents` integer NOT NULL,
	`item_count` integer NOT NULL,
	`file` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`bank_account_id`) REFERENCES `bank_accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payment_runs_org_created` ON `payment_runs` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `payment_runs_org_execution` ON `payment_runs` (`organization_id`,`execution_date`,`id`);--> statement-breakpoint
CREATE INDEX `payment_runs_org_updated` ON `payment_runs` (`organization_id`,`updated_at`,`id`);