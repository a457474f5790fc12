ALTER TABLE `invoices` ADD `issued_customer` text;--> statement-breakpoint
-- custom
-- An issued document embeds the customer as it was issued (docs/api.md#embedded-data); the
-- documents issued before keep the buyer their PDF and e-invoice carry, with the customer's
-- other fields as they are today, written once by a data migration (backfillIssuedCustomers).
INSERT INTO `pending_backfills` (`name`) VALUES ('issued_customers');
