CREATE TABLE `bank_transaction_allocations` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`bank_transaction_id` text NOT NULL,
	`position` integer NOT NULL,
	`invoice_id` text,
	`expense_id` text,
	`account_id` text,
	`vat_rate_id` text,
	`amount_cents` integer NOT NULL,
	`payment_id` text,
	`payment_link` text,
	`journal_entry_id` text,
	`via_suspense` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`bank_transaction_id`) REFERENCES `bank_transactions`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`expense_id`) REFERENCES `expenses`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`vat_rate_id`) REFERENCES `vat_rates`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bank_transaction_allocations_line_position` ON `bank_transaction_allocations` (`bank_transaction_id`,`position`);--> statement-breakpoint
CREATE INDEX `bank_transaction_allocations_payment` ON `bank_transaction_allocations` (`payment_id`) WHERE "bank_transaction_allocations"."payment_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `bank_transactions` ADD `suspense_exit_entry_id` text;--> statement-breakpoint
-- custom
-- Every line matched before allocations existed holds one: its document, payment and amount, posted
-- against the bank account directly (undoing it puts the amount into suspense).
INSERT INTO `bank_transaction_allocations` (`id`, `organization_id`, `bank_transaction_id`, `position`, `invoice_id`, `expense_id`, `account_id`, `vat_rate_id`, `amount_cents`, `payment_id`, `payment_link`, `journal_entry_id`, `via_suspense`, `created_at`)
SELECT lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
  t.`organization_id`, t.`id`, 1, t.`invoice_id`, t.`expense_id`, NULL, NULL, coalesce(t.`matched_cents`, t.`amount_cents`), t.`payment_id`, t.`payment_link`, NULL, 0, t.`updated_at`
FROM `bank_transactions` t
WHERE t.`status` = 'matched' AND (t.`invoice_id` IS NOT NULL OR t.`expense_id` IS NOT NULL);
--> statement-breakpoint
-- A line matched for less than its amount holds the rest in suspense from now on.
UPDATE `bank_transactions` SET `status` = 'partially_matched' WHERE `status` = 'matched' AND `matched_cents` IS NOT NULL AND `matched_cents` < `amount_cents`;
--> statement-breakpoint
-- The lines nothing holds (unmatched, ignored, a partial match's rest) are posted to suspense
-- (server/ledger/backfill.ts backfillSuspense).
INSERT INTO `pending_backfills` (`name`) VALUES ('bank_suspense');
