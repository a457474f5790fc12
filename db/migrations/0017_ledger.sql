CREATE TABLE `account_days` (
	`organization_id` text NOT NULL,
	`account_id` text NOT NULL,
	`currency` text NOT NULL,
	`date` text NOT NULL,
	`is_closing` integer NOT NULL,
	`debit_cents` integer NOT NULL,
	`credit_cents` integer NOT NULL,
	PRIMARY KEY(`account_id`, `currency`, `date`, `is_closing`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `account_days_org_date` ON `account_days` (`organization_id`,`currency`,`date`,`account_id`,`is_closing`,`debit_cents`,`credit_cents`);--> statement-breakpoint
CREATE TABLE `account_totals` (
	`organization_id` text NOT NULL,
	`account_id` text NOT NULL,
	`currency` text NOT NULL,
	`debit_cents` integer NOT NULL,
	`credit_cents` integer NOT NULL,
	PRIMARY KEY(`account_id`, `currency`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `expense_category_accounts` (
	`organization_id` text NOT NULL,
	`category` text NOT NULL,
	`account_id` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`organization_id`, `category`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `expense_payments` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`expense_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`payment_date` text NOT NULL,
	`payment_method` text NOT NULL,
	`reference` text,
	`bank_account_id` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`expense_id`) REFERENCES `expenses`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`bank_account_id`) REFERENCES `bank_accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `expense_payments_expense` ON `expense_payments` (`expense_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `fiscal_years` (
	`organization_id` text NOT NULL,
	`year` integer NOT NULL,
	`status` text NOT NULL,
	`closed_at` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`organization_id`, `year`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `journal_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`number` text NOT NULL,
	`date` text NOT NULL,
	`description` text NOT NULL,
	`currency` text NOT NULL,
	`source_type` text NOT NULL,
	`source_id` text,
	`reverses_entry_id` text,
	`is_closing` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `journal_entries_org_number` ON `journal_entries` (`organization_id`,`number`);--> statement-breakpoint
CREATE INDEX `journal_entries_org_date` ON `journal_entries` (`organization_id`,`date`,`id`);--> statement-breakpoint
CREATE INDEX `journal_entries_org_source` ON `journal_entries` (`organization_id`,`source_type`,`source_id`,`date`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `journal_entries_reverses` ON `journal_entries` (`reverses_entry_id`) WHERE "journal_entries"."reverses_entry_id" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `journal_lines` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`entry_id` text NOT NULL,
	`line_no` integer NOT NULL,
	`account_id` text NOT NULL,
	`date` text NOT NULL,
	`currency` text NOT NULL,
	`debit_cents` integer NOT NULL,
	`credit_cents` integer NOT NULL,
	`description` text,
	`vat_side` text,
	`vat_role` text,
	`vat_category` text,
	`vat_rate_bp` integer,
	`vat_note` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	-- deferred: a line is written before its entry's header, whose trigger checks the balance;
	-- a line whose header never comes cannot be committed
	FOREIGN KEY (`entry_id`) REFERENCES `journal_entries`(`id`) ON UPDATE no action ON DELETE cascade DEFERRABLE INITIALLY DEFERRED,
	-- one side per line, never negative
	CHECK (`debit_cents` >= 0 AND `credit_cents` >= 0 AND (`debit_cents` = 0) <> (`credit_cents` = 0))
);
--> statement-breakpoint
CREATE INDEX `journal_lines_entry` ON `journal_lines` (`entry_id`,`line_no`);--> statement-breakpoint
CREATE INDEX `journal_lines_org_account` ON `journal_lines` (`organization_id`,`account_id`,`date`,`entry_id`);--> statement-breakpoint
CREATE TABLE `pending_backfills` (
	`name` text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE `vat_days` (
	`organization_id` text NOT NULL,
	`currency` text NOT NULL,
	`date` text NOT NULL,
	`side` text NOT NULL,
	`category` text NOT NULL,
	`rate_bp` integer NOT NULL,
	`base_cents` integer NOT NULL,
	`vat_cents` integer NOT NULL,
	`credit_base_cents` integer NOT NULL,
	`credit_vat_cents` integer NOT NULL,
	PRIMARY KEY(`organization_id`, `currency`, `date`, `side`, `category`, `rate_bp`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `accounts` ADD `system_account` text;--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_org_system` ON `accounts` (`organization_id`,`system_account`) WHERE "accounts"."system_account" IS NOT NULL AND "accounts"."system_account" <> 'bank';--> statement-breakpoint
ALTER TABLE `expenses` ADD `paid_cents` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `payments` ADD `bank_account_id` text REFERENCES bank_accounts(id);--> statement-breakpoint
ALTER TABLE `bank_accounts` DROP COLUMN `balance_cents`;
--> statement-breakpoint
-- The chart's roles (server/accounts/seed.ts), on the organisations created before them.
UPDATE `accounts` SET `system_account` = CASE `code`
  WHEN '1110' THEN 'bank' WHEN '1200' THEN 'receivables' WHEN '1400' THEN 'vat_receivable'
  WHEN '2100' THEN 'payables' WHEN '2200' THEN 'vat_payable' WHEN '3200' THEN 'retained_earnings'
  WHEN '4100' THEN 'sales' WHEN '6800' THEN 'purchases' END
WHERE `code` IN ('1110', '1200', '1400', '2100', '2200', '3200', '4100', '6800');
--> statement-breakpoint
INSERT INTO `accounts` (`id`, `organization_id`, `code`, `name`, `type`, `parent_id`, `is_active`, `description`, `system_account`, `created_at`, `updated_at`)
SELECT lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
  o.`id`, '6800', 'General expenses', 'expense', (SELECT p.`id` FROM `accounts` p WHERE p.`organization_id` = o.`id` AND p.`code` = '6000'), 1,
  'Expenses of a category mapped to no other account', 'purchases', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
FROM `organizations` o
WHERE NOT EXISTS (SELECT 1 FROM `accounts` a WHERE a.`organization_id` = o.`id` AND a.`code` = '6800');
--> statement-breakpoint
-- The default category map (DEFAULT_CATEGORY_ACCOUNTS), for the organisations created before it.
INSERT OR IGNORE INTO `expense_category_accounts` (`organization_id`, `category`, `account_id`, `updated_at`)
WITH m(`category`, `code`) AS (VALUES ('cost of goods sold', '6100'), ('goods', '6100'), ('merchandise', '6100'), ('rent', '6200'), ('salaries', '6300'),
  ('salary', '6300'), ('payroll', '6300'), ('office', '6400'), ('software', '6400'), ('supplies', '6400'), ('subscriptions', '6400'),
  ('equipment', '6400'), ('travel', '6500'), ('transport', '6500'), ('accommodation', '6500'), ('bank charges', '6900'), ('bank fees', '6900'))
SELECT a.`organization_id`, m.`category`, a.`id`, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
FROM m JOIN `accounts` a ON a.`code` = m.`code`;
--> statement-breakpoint
-- A journal entry is written lines first, header last (server/ledger/post.ts). The header's
-- insert checks what the code computed: at least two lines, debits equal to credits, every line
-- of the entry's organisation, date and currency, and a year that is not closed (closing entries
-- and their reversal are the one posting a closed year takes).
CREATE TRIGGER `journal_entries_balanced` BEFORE INSERT ON `journal_entries`
WHEN (SELECT count(*) < 2 OR sum(`debit_cents`) <> sum(`credit_cents`) FROM `journal_lines` WHERE `entry_id` = new.`id`)
  OR EXISTS (SELECT 1 FROM `journal_lines` WHERE `entry_id` = new.`id`
    AND (`organization_id` <> new.`organization_id` OR `date` <> new.`date` OR `currency` <> new.`currency`))
BEGIN
  SELECT RAISE(ABORT, 'a journal entry must have at least two lines, of its organisation, date and currency, whose debits equal its credits');
END;
--> statement-breakpoint
CREATE TRIGGER `journal_entries_open_year` BEFORE INSERT ON `journal_entries`
WHEN NOT new.`is_closing` AND EXISTS (SELECT 1 FROM `fiscal_years` WHERE `organization_id` = new.`organization_id`
  AND `year` = CAST(substr(new.`date`, 1, 4) AS INTEGER) AND `status` = 'closed')
BEGIN
  SELECT RAISE(ABORT, 'the fiscal year of this journal entry is closed');
END;
--> statement-breakpoint
CREATE TRIGGER `journal_lines_sealed` BEFORE INSERT ON `journal_lines`
WHEN EXISTS (SELECT 1 FROM `journal_entries` WHERE `id` = new.`entry_id`)
BEGIN
  SELECT RAISE(ABORT, 'a posted journal entry is never changed: post a reversing entry');
END;
--> statement-breakpoint
CREATE TRIGGER `journal_entries_no_update` BEFORE UPDATE ON `journal_entries` BEGIN
  SELECT RAISE(ABORT, 'a posted journal entry is never changed: post a reversing entry');
END;
--> statement-breakpoint
CREATE TRIGGER `journal_lines_no_update` BEFORE UPDATE ON `journal_lines` BEGIN
  SELECT RAISE(ABORT, 'a posted journal entry is never changed: post a reversing entry');
END;
--> statement-breakpoint
-- as audit_log: only the cascade of deleting a whole organisation removes entries
CREATE TRIGGER `journal_entries_no_delete` BEFORE DELETE ON `journal_entries`
WHEN EXISTS (SELECT 1 FROM `organizations` WHERE `id` = old.`organization_id`) BEGIN
  SELECT RAISE(ABORT, 'a posted journal entry is never deleted: post a reversing entry');
END;
--> statement-breakpoint
CREATE TRIGGER `journal_lines_no_delete` BEFORE DELETE ON `journal_lines`
WHEN EXISTS (SELECT 1 FROM `organizations` WHERE `id` = old.`organization_id`) BEGIN
  SELECT RAISE(ABORT, 'a posted journal entry is never deleted: post a reversing entry');
END;
--> statement-breakpoint
-- The running balances reports read (server/reports): per account, currency and day; per
-- account and currency to date; VAT per day, side, category and rate.
CREATE TRIGGER `journal_entries_balances` AFTER INSERT ON `journal_entries` BEGIN
  INSERT INTO `account_days` (`organization_id`, `account_id`, `currency`, `date`, `is_closing`, `debit_cents`, `credit_cents`)
  SELECT new.`organization_id`, `account_id`, new.`currency`, new.`date`, new.`is_closing`, sum(`debit_cents`), sum(`credit_cents`)
  FROM `journal_lines` WHERE `entry_id` = new.`id` GROUP BY `account_id`
  ON CONFLICT (`account_id`, `currency`, `date`, `is_closing`) DO UPDATE
    SET `debit_cents` = `debit_cents` + excluded.`debit_cents`, `credit_cents` = `credit_cents` + excluded.`credit_cents`;
  INSERT INTO `account_totals` (`organization_id`, `account_id`, `currency`, `debit_cents`, `credit_cents`)
  SELECT new.`organization_id`, `account_id`, new.`currency`, sum(`debit_cents`), sum(`credit_cents`)
  FROM `journal_lines` WHERE `entry_id` = new.`id` GROUP BY `account_id`
  ON CONFLICT (`account_id`, `currency`) DO UPDATE
    SET `debit_cents` = `debit_cents` + excluded.`debit_cents`, `credit_cents` = `credit_cents` + excluded.`credit_cents`;
  INSERT INTO `vat_days` (`organization_id`, `currency`, `date`, `side`, `category`, `rate_bp`, `base_cents`, `vat_cents`, `credit_base_cents`, `credit_vat_cents`)
  SELECT new.`organization_id`, new.`currency`, new.`date`, `vat_side`, `vat_category`, `vat_rate_bp`,
    sum(CASE WHEN `vat_role` = 'base' THEN `signed` ELSE 0 END),
    sum(CASE WHEN `vat_role` = 'vat' THEN `signed` ELSE 0 END),
    sum(CASE WHEN `vat_role` = 'base' AND `vat_note` THEN `signed` ELSE 0 END),
    sum(CASE WHEN `vat_role` = 'vat' AND `vat_note` THEN `signed` ELSE 0 END)
  FROM (SELECT *, CASE `vat_side` WHEN 'sales' THEN `credit_cents` - `debit_cents` ELSE `debit_cents` - `credit_cents` END AS `signed`
        FROM `journal_lines` WHERE `entry_id` = new.`id` AND `vat_side` IS NOT NULL)
  GROUP BY `vat_side`, `vat_category`, `vat_rate_bp`
  ON CONFLICT (`organization_id`, `currency`, `date`, `side`, `category`, `rate_bp`) DO UPDATE
    SET `base_cents` = `base_cents` + excluded.`base_cents`, `vat_cents` = `vat_cents` + excluded.`vat_cents`,
        `credit_base_cents` = `credit_base_cents` + excluded.`credit_base_cents`, `credit_vat_cents` = `credit_vat_cents` + excluded.`credit_vat_cents`;
END;
--> statement-breakpoint
-- The documents, payments and expenses written before the ledger are posted by the same rules
-- as new ones (server/ledger/backfill.ts), right after the migrations, in one transaction that
-- removes this row: a crash in between leaves it, and the next start posts them.
INSERT INTO `pending_backfills` (`name`) VALUES ('ledger');