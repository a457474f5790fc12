-- Numbers are drawn at finalize now (server/invoices/numbering.ts): a draft
-- carries a provisional number, DRAFT- and the last 8 hex digits of its id, and the definitive
-- number comes from its series when it is issued. Drafts numbered by the earlier Kontor lose
-- their series numbers (their own numbers, given by the client, stay); issued documents keep
-- theirs, and each series continues after its highest issued number. A number a draft held
-- below that stays a gap of the earlier Kontor's making: issued documents are never renumbered.
--
-- 1. The drafts' series numbers (INV-, CN- or INT-, a year, five digits or more) become
--    provisional: first with 12 hex digits of the id (random bits of a UUID v7, unique in
--    practice), then with 8 where no other document of the organisation has, or would have, the
--    same, as new drafts are numbered.
UPDATE invoices SET number = 'DRAFT-' || substr(lower(replace(id, '-', '')), -12)
WHERE status = 'draft'
  AND ((upper(number) GLOB 'INV-[0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9]*' AND substr(number, 10) NOT GLOB '*[^0-9]*')
    OR (upper(number) GLOB 'INT-[0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9]*' AND substr(number, 10) NOT GLOB '*[^0-9]*')
    OR (upper(number) GLOB 'CN-[0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9]*' AND substr(number, 9) NOT GLOB '*[^0-9]*'));
--> statement-breakpoint
UPDATE invoices SET number = 'DRAFT-' || substr(lower(replace(id, '-', '')), -8)
WHERE status = 'draft'
  AND number = 'DRAFT-' || substr(lower(replace(id, '-', '')), -12)
  AND NOT EXISTS (
    SELECT 1 FROM invoices AS other
    WHERE other.organization_id = invoices.organization_id
      AND other.id <> invoices.id
      AND (other.number = 'DRAFT-' || substr(lower(replace(invoices.id, '-', '')), -8)
        OR (other.number = 'DRAFT-' || substr(lower(replace(other.id, '-', '')), -12)
          AND substr(lower(replace(other.id, '-', '')), -8) = substr(lower(replace(invoices.id, '-', '')), -8))));
--> statement-breakpoint
-- 2. Each series' counter (number_sequences, kind = the type, per year) is its highest issued
--    number: the next finalize continues after it. Numbers only drafts held, or deleted drafts
--    took, are free again; a series no document was issued in starts at 00001.
DELETE FROM number_sequences WHERE kind IN ('invoice', 'credit_note');
--> statement-breakpoint
INSERT INTO number_sequences (organization_id, kind, year, last_value)
SELECT organization_id, kind, year, max(value) FROM (
  SELECT organization_id, 'invoice' AS kind, CAST(substr(number, 5, 4) AS INTEGER) AS year, CAST(substr(number, 10) AS INTEGER) AS value
  FROM invoices
  WHERE status <> 'draft' AND number GLOB 'INV-[0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9]*' AND substr(number, 10) NOT GLOB '*[^0-9]*'
  UNION ALL
  SELECT organization_id, 'credit_note', CAST(substr(number, 4, 4) AS INTEGER), CAST(substr(number, 9) AS INTEGER)
  FROM invoices
  WHERE status <> 'draft' AND number GLOB 'CN-[0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9]*' AND substr(number, 9) NOT GLOB '*[^0-9]*'
)
GROUP BY organization_id, kind, year;
