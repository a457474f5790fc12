ALTER TABLE `invoices` ADD `delivery_date` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `legal_kind` text DEFAULT 'company' NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `legal_form` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `share_capital_cents` integer;--> statement-breakpoint
ALTER TABLE `organizations` ADD `register_kind` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `register_number` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `register_place` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `managing_directors` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `general_terms` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `discount_terms` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `check_legal_mentions` integer DEFAULT false NOT NULL;