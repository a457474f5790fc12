-- A deleted payment releases the bank line that held it in code now (server/settlement/payments.ts
-- deletePayment), with an audit entry, instead of in these triggers of 0018 (a business rule in SQL,
-- unaudited).
DROP TRIGGER IF EXISTS payments_release_bank_transaction;
--> statement-breakpoint
DROP TRIGGER IF EXISTS expense_payments_release_bank_transaction;
