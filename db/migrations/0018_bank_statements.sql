CREATE TABLE `bank_statements` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`bank_account_id` text NOT NULL,
	`statement_id` text NOT NULL,
	`format` text NOT NULL,
	`currency` text NOT NULL,
	`opening_cents` integer NOT NULL,
	`opening_date` text NOT NULL,
	`closing_cents` integer NOT NULL,
	`closing_date` text NOT NULL,
	`sha256` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`bank_account_id`) REFERENCES `bank_accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bank_statements_account_statement` ON `bank_statements` (`bank_account_id`,`statement_id`);--> statement-breakpoint
CREATE INDEX `bank_statements_account_closing` ON `bank_statements` (`bank_account_id`,`closing_date`,`created_at`);--> statement-breakpoint
CREATE TABLE `bank_transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`bank_account_id` text NOT NULL,
	`statement_id` text NOT NULL,
	`entry_ref` text NOT NULL,
	`booking_date` text NOT NULL,
	`value_date` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`direction` text NOT NULL,
	`counterparty_name` text,
	`counterparty_iban` text,
	`communication` text,
	`structured_reference` text,
	`status` text NOT NULL,
	`invoice_id` text,
	`expense_id` text,
	`payment_id` text,
	`payment_link` text,
	`matched_cents` integer,
	`suggested_expense_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`bank_account_id`) REFERENCES `bank_accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`statement_id`) REFERENCES `bank_statements`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`expense_id`) REFERENCES `expenses`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`suggested_expense_id`) REFERENCES `expenses`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bank_transactions_account_entry` ON `bank_transactions` (`bank_account_id`,`entry_ref`);--> statement-breakpoint
CREATE INDEX `bank_transactions_org_booking` ON `bank_transactions` (`organization_id`,`booking_date`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_org_account` ON `bank_transactions` (`organization_id`,`bank_account_id`,`booking_date`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_org_status` ON `bank_transactions` (`organization_id`,`status`,`booking_date`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_org_amount` ON `bank_transactions` (`organization_id`,`amount_cents`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_org_created` ON `bank_transactions` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_org_updated` ON `bank_transactions` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_statement` ON `bank_transactions` (`statement_id`,`booking_date`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_payment` ON `bank_transactions` (`payment_id`) WHERE "bank_transactions"."payment_id" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `expense_documents` (
	`expense_id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`content_type` text NOT NULL,
	`body` blob NOT NULL,
	`sha256` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`expense_id`) REFERENCES `expenses`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `expense_vat_lines` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`expense_id` text NOT NULL,
	`category` text NOT NULL,
	`rate_bp` integer NOT NULL,
	`base_cents` integer NOT NULL,
	`vat_cents` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`expense_id`) REFERENCES `expenses`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `expense_vat_lines_expense` ON `expense_vat_lines` (`expense_id`,`category`,`rate_bp`);--> statement-breakpoint
ALTER TABLE `expenses` ADD `document_type` text DEFAULT 'invoice' NOT NULL;--> statement-breakpoint
ALTER TABLE `expenses` ADD `supplier_invoice_number` text;--> statement-breakpoint
ALTER TABLE `expenses` ADD `payee_iban` text;--> statement-breakpoint
ALTER TABLE `expenses` ADD `payment_reference` text;--> statement-breakpoint
CREATE UNIQUE INDEX `expenses_org_supplier_document` ON `expenses` (`organization_id`,`supplier_id`,`document_type`,`supplier_invoice_number`) WHERE "expenses"."supplier_invoice_number" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `suppliers_org_vat` ON `suppliers` (`organization_id`,upper(replace(replace(replace("vat_number", ' ', ''), '.', ''), '-', '')),`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `suppliers_org_peppol` ON `suppliers` (`organization_id`,`peppol_id`,`created_at`,`id`);--> statement-breakpoint
-- search on a bank transaction's counterparty and communication (external content, as in 0001)
CREATE VIRTUAL TABLE bank_transactions_fts USING fts5(counterparty_name, counterparty_iban, communication, structured_reference, content='bank_transactions', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2', prefix='2 3');
--> statement-breakpoint
CREATE TRIGGER bank_transactions_fts_ai AFTER INSERT ON bank_transactions BEGIN
  INSERT INTO bank_transactions_fts(rowid, counterparty_name, counterparty_iban, communication, structured_reference) VALUES (new.rowid, new.counterparty_name, new.counterparty_iban, new.communication, new.structured_reference);
END;
--> statement-breakpoint
CREATE TRIGGER bank_transactions_fts_ad AFTER DELETE ON bank_transactions BEGIN
  INSERT INTO bank_transactions_fts(bank_transactions_fts, rowid, counterparty_name, counterparty_iban, communication, structured_reference) VALUES ('delete', old.rowid, old.counterparty_name, old.counterparty_iban, old.communication, old.structured_reference);
END;
--> statement-breakpoint
CREATE TRIGGER bank_transactions_fts_au AFTER UPDATE OF counterparty_name, counterparty_iban, communication, structured_reference ON bank_transactions BEGIN
  INSERT INTO bank_transactions_fts(bank_transactions_fts, rowid, counterparty_name, counterparty_iban, communication, structured_reference) VALUES ('delete', old.rowid, old.counterparty_name, old.counterparty_iban, old.communication, old.structured_reference);
  INSERT INTO bank_transactions_fts(rowid, counterparty_name, counterparty_iban, communication, structured_reference) VALUES (new.rowid, new.counterparty_name, new.counterparty_iban, new.communication, new.structured_reference);
END;
--> statement-breakpoint
-- a payment deleted by hand (DELETE /invoices/{id}/payments/{pid}, /expenses/…) leaves the bank
-- line it recorded unmatched again, whichever code path deletes it
CREATE TRIGGER payments_release_bank_transaction AFTER DELETE ON payments BEGIN
  UPDATE bank_transactions SET status = 'unmatched', invoice_id = NULL, payment_id = NULL, payment_link = NULL, matched_cents = NULL,
    updated_at = strftime('%Y-%m-%dT%H:%M:%f000Z', 'now')
  WHERE payment_id = old.id AND invoice_id = old.invoice_id;
END;
--> statement-breakpoint
CREATE TRIGGER expense_payments_release_bank_transaction AFTER DELETE ON expense_payments BEGIN
  UPDATE bank_transactions SET status = 'unmatched', expense_id = NULL, payment_id = NULL, payment_link = NULL, matched_cents = NULL,
    updated_at = strftime('%Y-%m-%dT%H:%M:%f000Z', 'now')
  WHERE payment_id = old.id AND expense_id = old.expense_id;
END;
