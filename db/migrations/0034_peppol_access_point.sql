ALTER TABLE `organizations` ADD `peppol_provider` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `peppol_credentials` text;--> statement-breakpoint
-- custom
-- the Peppol inbox poll walks the organisations that have an access point: a partial index holds only those
CREATE INDEX `organizations_peppol_provider` ON `organizations` (`peppol_provider`) WHERE `peppol_provider` IS NOT NULL;
