CREATE TABLE `query_log` (
	`id` text PRIMARY KEY NOT NULL,
	`collection_id` text NOT NULL,
	`at` text NOT NULL,
	`query` text NOT NULL,
	`mode` text NOT NULL,
	`filter` text,
	`result_count` integer NOT NULL,
	`top_score` real,
	`latency_ms` real NOT NULL,
	`door` text NOT NULL,
	`caller` text NOT NULL,
	`no_relevant` integer NOT NULL,
	FOREIGN KEY (`collection_id`) REFERENCES `collections`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `query_log_collection_at_idx` ON `query_log` (`collection_id`,`at`);--> statement-breakpoint
ALTER TABLE `collections` ADD `query_log` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `collections` ADD `query_log_days` integer DEFAULT 30 NOT NULL;