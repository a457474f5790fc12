-- The earlier Kontor seeded every organisation with a bank account holding the IBAN
-- BE71096123456769, which no organisation owns; a document must never print it. Every
-- bank account with that IBAN came from the seed: it is flagged as the placeholder and
-- deactivated, so that documents never print it again (no payee until the organisation adds its
-- own account) and it is no longer the default. Its ledger account (1110) stays, with its
-- postings: the books do not change. docs/operations.md's upgrade notes say what to do.
ALTER TABLE `bank_accounts` ADD `is_placeholder` integer DEFAULT false NOT NULL;
--> statement-breakpoint
UPDATE bank_accounts SET is_placeholder = 1, is_active = 0 WHERE iban = 'BE71096123456769';
--> statement-breakpoint
UPDATE organizations SET default_bank_account_id = NULL
WHERE default_bank_account_id IN (SELECT id FROM bank_accounts WHERE is_placeholder = 1);
--> statement-breakpoint
-- documents issued with it froze it in their parties (0015): it is not printed on them either
UPDATE invoices SET issued_parties = json_set(issued_parties, '$.payee', json('null'))
WHERE issued_parties IS NOT NULL AND json_extract(issued_parties, '$.payee.iban') = 'BE71096123456769';
