CREATE TABLE `supplier_identifiers` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`supplier_id` text NOT NULL,
	`kind` text NOT NULL,
	`value` text NOT NULL,
	`scheme` text DEFAULT '' NOT NULL,
	`source` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`supplier_id`) REFERENCES `suppliers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `supplier_identifiers_org_value` ON `supplier_identifiers` (`organization_id`,`kind`,`value`,`supplier_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `supplier_identifiers_supplier` ON `supplier_identifiers` (`supplier_id`,`kind`,`value`,`scheme`,`source`);--> statement-breakpoint
-- custom
-- The suppliers' own identifiers (server/suppliers/identity.ts backfillSupplierIdentifiers).
INSERT INTO `pending_backfills` (`name`) VALUES ('supplier_identifiers');
