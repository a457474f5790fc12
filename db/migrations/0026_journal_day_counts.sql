CREATE TABLE `journal_day_counts` (
	`organization_id` text NOT NULL,
	`date` text NOT NULL,
	`entries` integer NOT NULL,
	PRIMARY KEY(`organization_id`, `date`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Journal entry numbers in date order per year: an entry's number is its position in
-- its year by (date, id), derived when read (server/ledger/entries.ts); these per-day counts make
-- "how many entries before this day in its year" a sum over at most 366 rows. Entries are never
-- updated or deleted (migration 0017), so counting inserts is enough.
CREATE TRIGGER `journal_entries_day_count` AFTER INSERT ON `journal_entries` BEGIN
  INSERT INTO `journal_day_counts` (`organization_id`, `date`, `entries`) VALUES (new.`organization_id`, new.`date`, 1)
  ON CONFLICT (`organization_id`, `date`) DO UPDATE SET `entries` = `entries` + 1;
END;
--> statement-breakpoint
INSERT INTO `journal_day_counts` (`organization_id`, `date`, `entries`)
SELECT `organization_id`, `date`, count(*) FROM `journal_entries` GROUP BY `organization_id`, `date`;
--> statement-breakpoint
-- expenses gained the status paid (docs/payables.md#expenses): the approved ones their payments cover already are
UPDATE `expenses` SET `status` = 'paid' WHERE `status` = 'approved' AND `paid_cents` >= `amount_cents` + `vat_cents`;
