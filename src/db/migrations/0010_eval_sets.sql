CREATE TABLE `eval_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`set_id` text NOT NULL,
	`kind` text NOT NULL,
	`result` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`set_id`) REFERENCES `eval_sets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `eval_runs_set_idx` ON `eval_runs` (`set_id`,`id`);--> statement-breakpoint
CREATE TABLE `eval_sets` (
	`id` text PRIMARY KEY NOT NULL,
	`collection_id` text NOT NULL,
	`name` text NOT NULL,
	`queries` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`collection_id`) REFERENCES `collections`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `eval_sets_collection_idx` ON `eval_sets` (`collection_id`,`id`);--> statement-breakpoint
ALTER TABLE `collections` ADD `reindex_gate` text;