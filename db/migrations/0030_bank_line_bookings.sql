ALTER TABLE `bank_transactions` ADD `booked_account_id` text REFERENCES accounts(id);--> statement-breakpoint
ALTER TABLE `bank_transactions` ADD `booked_vat_rate_id` text REFERENCES vat_rates(id);--> statement-breakpoint
ALTER TABLE `bank_transactions` ADD `journal_entry_id` text;--> statement-breakpoint
ALTER TABLE `bank_transactions` ADD `transfer_line_id` text;--> statement-breakpoint
CREATE INDEX `bank_transactions_org_booked` ON `bank_transactions` (`organization_id`,`booked_account_id`,`amount_cents`) WHERE "bank_transactions"."booked_account_id" IS NOT NULL;--> statement-breakpoint
INSERT INTO `pending_backfills` (`name`) VALUES ('bank_opening_balances');
