-- Credit allocation (docs/invoicing.md#credit-notes): an open document's signed amount due counts what was
-- credited on it (invoices.credited_cents), so the running totals of migration 0020 are kept by
-- the same triggers, rewritten with the new column. The credit notes issued before it are
-- allocated by the upgrade's data migration (server/data-migrations.ts), through these triggers.
DROP TRIGGER `invoices_receivables_insert`;
--> statement-breakpoint
DROP TRIGGER `invoices_receivables_update_old`;
--> statement-breakpoint
DROP TRIGGER `invoices_receivables_update_new`;
--> statement-breakpoint
DROP TRIGGER `invoices_receivables_delete`;
--> statement-breakpoint
CREATE TRIGGER `invoices_receivables_insert` AFTER INSERT ON `invoices`
WHEN new.`status` IN ('finalized', 'sent', 'partially_paid') BEGIN
  INSERT INTO `customer_receivables` (`organization_id`, `currency`, `customer_id`, `open_cents`)
  VALUES (new.`organization_id`, new.`currency`, new.`customer_id`, CASE WHEN new.`type` = 'credit_note' THEN new.`paid_cents` + new.`credited_cents` - new.`total_cents` ELSE new.`total_cents` - new.`paid_cents` - new.`credited_cents` END)
  ON CONFLICT (`customer_id`, `currency`) DO UPDATE SET `open_cents` = `open_cents` + excluded.`open_cents`;
  INSERT INTO `receivable_due_days` (`organization_id`, `currency`, `due_date`, `open_cents`)
  VALUES (new.`organization_id`, new.`currency`, new.`due_date`, CASE WHEN new.`type` = 'credit_note' THEN new.`paid_cents` + new.`credited_cents` - new.`total_cents` ELSE new.`total_cents` - new.`paid_cents` - new.`credited_cents` END)
  ON CONFLICT (`organization_id`, `currency`, `due_date`) DO UPDATE SET `open_cents` = `open_cents` + excluded.`open_cents`;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_receivables_update_old` AFTER UPDATE OF `status`, `type`, `total_cents`, `paid_cents`, `credited_cents`, `due_date`, `customer_id`, `currency` ON `invoices`
WHEN old.`status` IN ('finalized', 'sent', 'partially_paid') BEGIN
  UPDATE `customer_receivables` SET `open_cents` = `open_cents` - CASE WHEN old.`type` = 'credit_note' THEN old.`paid_cents` + old.`credited_cents` - old.`total_cents` ELSE old.`total_cents` - old.`paid_cents` - old.`credited_cents` END
  WHERE `customer_id` = old.`customer_id` AND `currency` = old.`currency`;
  UPDATE `receivable_due_days` SET `open_cents` = `open_cents` - CASE WHEN old.`type` = 'credit_note' THEN old.`paid_cents` + old.`credited_cents` - old.`total_cents` ELSE old.`total_cents` - old.`paid_cents` - old.`credited_cents` END
  WHERE `organization_id` = old.`organization_id` AND `currency` = old.`currency` AND `due_date` = old.`due_date`;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_receivables_update_new` AFTER UPDATE OF `status`, `type`, `total_cents`, `paid_cents`, `credited_cents`, `due_date`, `customer_id`, `currency` ON `invoices`
WHEN new.`status` IN ('finalized', 'sent', 'partially_paid') BEGIN
  INSERT INTO `customer_receivables` (`organization_id`, `currency`, `customer_id`, `open_cents`)
  VALUES (new.`organization_id`, new.`currency`, new.`customer_id`, CASE WHEN new.`type` = 'credit_note' THEN new.`paid_cents` + new.`credited_cents` - new.`total_cents` ELSE new.`total_cents` - new.`paid_cents` - new.`credited_cents` END)
  ON CONFLICT (`customer_id`, `currency`) DO UPDATE SET `open_cents` = `open_cents` + excluded.`open_cents`;
  INSERT INTO `receivable_due_days` (`organization_id`, `currency`, `due_date`, `open_cents`)
  VALUES (new.`organization_id`, new.`currency`, new.`due_date`, CASE WHEN new.`type` = 'credit_note' THEN new.`paid_cents` + new.`credited_cents` - new.`total_cents` ELSE new.`total_cents` - new.`paid_cents` - new.`credited_cents` END)
  ON CONFLICT (`organization_id`, `currency`, `due_date`) DO UPDATE SET `open_cents` = `open_cents` + excluded.`open_cents`;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_receivables_delete` AFTER DELETE ON `invoices`
WHEN old.`status` IN ('finalized', 'sent', 'partially_paid') BEGIN
  UPDATE `customer_receivables` SET `open_cents` = `open_cents` - CASE WHEN old.`type` = 'credit_note' THEN old.`paid_cents` + old.`credited_cents` - old.`total_cents` ELSE old.`total_cents` - old.`paid_cents` - old.`credited_cents` END
  WHERE `customer_id` = old.`customer_id` AND `currency` = old.`currency`;
  UPDATE `receivable_due_days` SET `open_cents` = `open_cents` - CASE WHEN old.`type` = 'credit_note' THEN old.`paid_cents` + old.`credited_cents` - old.`total_cents` ELSE old.`total_cents` - old.`paid_cents` - old.`credited_cents` END
  WHERE `organization_id` = old.`organization_id` AND `currency` = old.`currency` AND `due_date` = old.`due_date`;
END;
--> statement-breakpoint
INSERT INTO `pending_backfills` (`name`) VALUES ('credit_allocation');
