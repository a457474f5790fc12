-- custom
-- The generic chart's fixed-asset account (server/accounts/seed.ts): 1600 Fixed assets under 1000
-- Assets, the range 1600–1699 investment goods post to (the VAT return's grid 83), on the
-- organisations with the generic chart created before it, unless they use the code already.
INSERT INTO `accounts` (`id`, `organization_id`, `code`, `name`, `type`, `parent_id`, `is_active`, `description`, `system_account`, `created_at`, `updated_at`)
SELECT lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
  o.`id`, '1600', 'Fixed assets', 'asset', (SELECT p.`id` FROM `accounts` p WHERE p.`organization_id` = o.`id` AND p.`code` = '1000'), 1,
  'Equipment, furniture, vehicles and software kept for use (investment goods): 1600–1699', NULL, strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z', strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000Z'
FROM `organizations` o
WHERE o.`chart` = 'generic' AND NOT EXISTS (SELECT 1 FROM `accounts` a WHERE a.`organization_id` = o.`id` AND a.`code` = '1600');
