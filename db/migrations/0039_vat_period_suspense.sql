ALTER TABLE `organizations` ADD `vat_period` text DEFAULT 'quarterly' NOT NULL;--> statement-breakpoint
-- custom
-- A chart that holds the suspense account as seeded (1900, by its name) gets its role.
UPDATE `accounts` SET `system_account` = 'suspense'
WHERE `code` = '1900' AND `name` = 'Suspense account' AND `system_account` IS NULL
  AND NOT EXISTS (SELECT 1 FROM `accounts` a WHERE a.`organization_id` = `accounts`.`organization_id` AND a.`system_account` = 'suspense');
--> statement-breakpoint
-- The suspense account (server/accounts/seed.ts) on the organisations created before it: 1900,
-- under 1000 Assets, in the `suspense` role.
INSERT INTO `accounts` (`id`, `organization_id`, `code`, `name`, `type`, `parent_id`, `is_active`, `description`, `system_account`, `created_at`, `updated_at`)
SELECT lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
  o.`id`, '1900', 'Suspense account', 'asset', (SELECT p.`id` FROM `accounts` p WHERE p.`organization_id` = o.`id` AND p.`code` = '1000'), 1,
  'Bank lines not yet matched to a document or booked to an account', 'suspense', strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z', strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'
FROM `organizations` o
WHERE NOT EXISTS (SELECT 1 FROM `accounts` a WHERE a.`organization_id` = o.`id` AND (a.`system_account` = 'suspense' OR a.`code` = '1900'));
