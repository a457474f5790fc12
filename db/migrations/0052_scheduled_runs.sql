CREATE TABLE `scheduled_runs` (
	`job` text NOT NULL,
	`period` text NOT NULL,
	`run_by` text NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text,
	PRIMARY KEY(`job`, `period`)
);
