ALTER TABLE `fiscal_years` ADD `start_date` text;--> statement-breakpoint
ALTER TABLE `fiscal_years` ADD `end_date` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `fiscal_year_start` text DEFAULT '01-01' NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `first_fiscal_year_start` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `first_fiscal_year_end` text;--> statement-breakpoint
-- custom
-- Fiscal years were calendar years: the rows kept so far cover 1 January to 31 December.
UPDATE `fiscal_years` SET `start_date` = printf('%04d-01-01', `year`), `end_date` = printf('%04d-12-31', `year`);
--> statement-breakpoint
-- The year lock reads a closed year's dates, not the calendar year of the entry's date, so that a
-- fiscal year from 1 July to 30 June locks those days (docs/books.md#fiscal-years).
DROP TRIGGER `journal_entries_open_year`;
--> statement-breakpoint
CREATE TRIGGER `journal_entries_open_year` BEFORE INSERT ON `journal_entries`
WHEN NOT new.`is_closing` AND EXISTS (SELECT 1 FROM `fiscal_years` WHERE `organization_id` = new.`organization_id`
  AND `status` = 'closed' AND `start_date` <= new.`date` AND `end_date` >= new.`date`)
BEGIN
  SELECT RAISE(ABORT, 'the fiscal year of this journal entry is closed');
END;
--> statement-breakpoint
-- An organisation that declares its first fiscal year did not exist before it: nothing posts there.
CREATE TRIGGER `journal_entries_before_first_year` BEFORE INSERT ON `journal_entries`
WHEN EXISTS (SELECT 1 FROM `organizations` WHERE `id` = new.`organization_id` AND `first_fiscal_year_start` > new.`date`)
BEGIN
  SELECT RAISE(ABORT, 'this journal entry is dated before the organisation''s first fiscal year');
END;
