CREATE TABLE `received_documents` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`supplier_id` text NOT NULL,
	`document_type` text NOT NULL,
	`supplier_invoice_number` text NOT NULL,
	`date` text NOT NULL,
	`vendor` text NOT NULL,
	`currency` text NOT NULL,
	`content_type` text NOT NULL,
	`body` blob NOT NULL,
	`sha256` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`supplier_id`) REFERENCES `suppliers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `received_documents_org_supplier_document` ON `received_documents` (`organization_id`,`supplier_id`,`document_type`,`supplier_invoice_number`);--> statement-breakpoint
CREATE INDEX `received_documents_org_date` ON `received_documents` (`organization_id`,`date`,`id`);--> statement-breakpoint
CREATE INDEX `received_documents_org_supplier` ON `received_documents` (`organization_id`,`supplier_id`,`date`,`id`);--> statement-breakpoint
CREATE INDEX `received_documents_org_created` ON `received_documents` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `received_documents_supplier` ON `received_documents` (`supplier_id`);--> statement-breakpoint
ALTER TABLE `expenses` ADD `prepaid_cents` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `expenses` ADD `rounding_cents` integer DEFAULT 0 NOT NULL;