CREATE TABLE `source_fetches` (
	`document_id` text PRIMARY KEY NOT NULL,
	`refresh_every` integer,
	`next_check_at` text,
	`last_checked_at` text,
	`last_changed_at` text,
	`etag` text,
	`last_modified` text,
	`crawl` text,
	`crawl_report` text,
	`crawl_source_id` text,
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`crawl_source_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `source_fetches_due_idx` ON `source_fetches` (`next_check_at`);--> statement-breakpoint
CREATE INDEX `source_fetches_crawl_idx` ON `source_fetches` (`crawl_source_id`);