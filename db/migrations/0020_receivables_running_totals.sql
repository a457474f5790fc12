CREATE TABLE `customer_receivables` (
	`organization_id` text NOT NULL,
	`currency` text NOT NULL,
	`customer_id` text NOT NULL,
	`open_cents` integer NOT NULL,
	PRIMARY KEY(`customer_id`, `currency`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `customer_receivables_org_open` ON `customer_receivables` (`organization_id`,`currency`,"open_cents" DESC,`customer_id`);--> statement-breakpoint
CREATE TABLE `receivable_due_days` (
	`organization_id` text NOT NULL,
	`currency` text NOT NULL,
	`due_date` text NOT NULL,
	`open_cents` integer NOT NULL,
	PRIMARY KEY(`organization_id`, `currency`, `due_date`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- What customers owe, kept as the open documents change (server/reports/receivables.ts reads and
-- rebuilds them): an open document (finalized, sent, partially paid) counts its signed amount
-- due (db/schema.ts signedAmountDue: an invoice's amount due, a credit note's negative) for its
-- customer and for its due date; any change to what that depends on takes the old away and adds
-- the new.
CREATE TRIGGER `invoices_receivables_insert` AFTER INSERT ON `invoices`
WHEN new.`status` IN ('finalized', 'sent', 'partially_paid') BEGIN
  INSERT INTO `customer_receivables` (`organization_id`, `currency`, `customer_id`, `open_cents`)
  VALUES (new.`organization_id`, new.`currency`, new.`customer_id`, CASE WHEN new.`type` = 'credit_note' THEN new.`paid_cents` - new.`total_cents` ELSE new.`total_cents` - new.`paid_cents` END)
  ON CONFLICT (`customer_id`, `currency`) DO UPDATE SET `open_cents` = `open_cents` + excluded.`open_cents`;
  INSERT INTO `receivable_due_days` (`organization_id`, `currency`, `due_date`, `open_cents`)
  VALUES (new.`organization_id`, new.`currency`, new.`due_date`, CASE WHEN new.`type` = 'credit_note' THEN new.`paid_cents` - new.`total_cents` ELSE new.`total_cents` - new.`paid_cents` END)
  ON CONFLICT (`organization_id`, `currency`, `due_date`) DO UPDATE SET `open_cents` = `open_cents` + excluded.`open_cents`;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_receivables_update_old` AFTER UPDATE OF `status`, `type`, `total_cents`, `paid_cents`, `due_date`, `customer_id`, `currency` ON `invoices`
WHEN old.`status` IN ('finalized', 'sent', 'partially_paid') BEGIN
  UPDATE `customer_receivables` SET `open_cents` = `open_cents` - CASE WHEN old.`type` = 'credit_note' THEN old.`paid_cents` - old.`total_cents` ELSE old.`total_cents` - old.`paid_cents` END
  WHERE `customer_id` = old.`customer_id` AND `currency` = old.`currency`;
  UPDATE `receivable_due_days` SET `open_cents` = `open_cents` - CASE WHEN old.`type` = 'credit_note' THEN old.`paid_cents` - old.`total_cents` ELSE old.`total_cents` - old.`paid_cents` END
  WHERE `organization_id` = old.`organization_id` AND `currency` = old.`currency` AND `due_date` = old.`due_date`;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_receivables_update_new` AFTER UPDATE OF `status`, `type`, `total_cents`, `paid_cents`, `due_date`, `customer_id`, `currency` ON `invoices`
WHEN new.`status` IN ('finalized', 'sent', 'partially_paid') BEGIN
  INSERT INTO `customer_receivables` (`organization_id`, `currency`, `customer_id`, `open_cents`)
  VALUES (new.`organization_id`, new.`currency`, new.`customer_id`, CASE WHEN new.`type` = 'credit_note' THEN new.`paid_cents` - new.`total_cents` ELSE new.`total_cents` - new.`paid_cents` END)
  ON CONFLICT (`customer_id`, `currency`) DO UPDATE SET `open_cents` = `open_cents` + excluded.`open_cents`;
  INSERT INTO `receivable_due_days` (`organization_id`, `currency`, `due_date`, `open_cents`)
  VALUES (new.`organization_id`, new.`currency`, new.`due_date`, CASE WHEN new.`type` = 'credit_note' THEN new.`paid_cents` - new.`total_cents` ELSE new.`total_cents` - new.`paid_cents` END)
  ON CONFLICT (`organization_id`, `currency`, `due_date`) DO UPDATE SET `open_cents` = `open_cents` + excluded.`open_cents`;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_receivables_delete` AFTER DELETE ON `invoices`
WHEN old.`status` IN ('finalized', 'sent', 'partially_paid') BEGIN
  UPDATE `customer_receivables` SET `open_cents` = `open_cents` - CASE WHEN old.`type` = 'credit_note' THEN old.`paid_cents` - old.`total_cents` ELSE old.`total_cents` - old.`paid_cents` END
  WHERE `customer_id` = old.`customer_id` AND `currency` = old.`currency`;
  UPDATE `receivable_due_days` SET `open_cents` = `open_cents` - CASE WHEN old.`type` = 'credit_note' THEN old.`paid_cents` - old.`total_cents` ELSE old.`total_cents` - old.`paid_cents` END
  WHERE `organization_id` = old.`organization_id` AND `currency` = old.`currency` AND `due_date` = old.`due_date`;
END;
--> statement-breakpoint
-- the documents open before these triggers existed (server/reports/receivables.ts rebuildReceivables)
INSERT INTO `pending_backfills` (`name`) VALUES ('receivables');
