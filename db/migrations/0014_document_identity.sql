ALTER TABLE `customers` ADD `peppol_id` text;--> statement-breakpoint
ALTER TABLE `customers` ADD `language` text;--> statement-breakpoint
ALTER TABLE `invoice_lines` ADD `unit_code` text DEFAULT 'C62' NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `buyer_reference` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `order_reference` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `payment_reference` text;--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_org_payment_reference` ON `invoices` (`organization_id`,`payment_reference`) WHERE "invoices"."payment_reference" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `address` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `city` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `postal_code` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `vat_number` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `company_number` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `email` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `phone` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `website` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `peppol_id` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `default_bank_account_id` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `language` text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE `suppliers` ADD `peppol_id` text;--> statement-breakpoint
ALTER TABLE `suppliers` ADD `language` text;--> statement-breakpoint
ALTER TABLE `vat_rates` ADD `category` text DEFAULT 'S' NOT NULL;--> statement-breakpoint
ALTER TABLE `vat_rates` ADD `exemption_reason_code` text;--> statement-breakpoint
-- Backfill of the organisations' identity columns. Existing 0 % rates are zero-rated supplies (category Z).
UPDATE `vat_rates` SET `category` = 'Z' WHERE `rate_bp` = 0;--> statement-breakpoint
-- Every organisation gets the 0 % rates that server/vat-rates/seed.ts now seeds (ZERO_RATED_EXTRAS),
-- with UUID v7 ids (the time in milliseconds, version 7, the RFC 4122 variant, random bits).
INSERT INTO `vat_rates` (`id`, `organization_id`, `name`, `rate_bp`, `is_default`, `category`, `exemption_reason_code`, `created_at`)
WITH `extra`(`name`, `category`, `code`) AS (
  VALUES ('Reverse charge 0%', 'AE', 'VATEX-EU-AE'),
         ('Intra-EU supply 0%', 'K', 'VATEX-EU-IC'),
         ('Export 0%', 'G', 'VATEX-EU-G'),
         ('Exempt 0%', 'E', 'VATEX-EU-132')
), `stamp`(`ms`) AS (
  SELECT lower(printf('%012x', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)))
)
SELECT
  substr(`stamp`.`ms`, 1, 8) || '-' || substr(`stamp`.`ms`, 9, 4) || '-7' || substr(lower(hex(randomblob(2))), 2, 3) || '-'
    || substr('89ab', 1 + abs(random() % 4), 1) || substr(lower(hex(randomblob(2))), 2, 3) || '-' || lower(hex(randomblob(6))),
  `organizations`.`id`, `extra`.`name`, 0, 0, `extra`.`category`, `extra`.`code`,
  strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'
FROM `organizations` CROSS JOIN `extra` CROSS JOIN `stamp`
WHERE NOT EXISTS (
  SELECT 1 FROM `vat_rates` WHERE `vat_rates`.`organization_id` = `organizations`.`id` AND `vat_rates`.`category` = `extra`.`category`
);--> statement-breakpoint
-- The IBAN on documents: the organisation's oldest active bank account, as new organisations get their seeded one.
UPDATE `organizations` SET `default_bank_account_id` = (
  SELECT `id` FROM `bank_accounts`
  WHERE `bank_accounts`.`organization_id` = `organizations`.`id` AND `bank_accounts`.`is_active` = 1
  ORDER BY `created_at`, `id` LIMIT 1
) WHERE `default_bank_account_id` IS NULL;
