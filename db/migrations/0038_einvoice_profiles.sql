ALTER TABLE `customers` ADD `buyer_reference` text;--> statement-breakpoint
ALTER TABLE `customers` ADD `einvoice_profile` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `contact_name` text;--> statement-breakpoint
ALTER TABLE `suppliers` ADD `buyer_reference` text;--> statement-breakpoint
ALTER TABLE `suppliers` ADD `einvoice_profile` text;