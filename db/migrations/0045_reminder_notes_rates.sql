ALTER TABLE `reminders` ADD `earlier_notes` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `reminders` ADD `missing_rates` text DEFAULT '[]' NOT NULL;