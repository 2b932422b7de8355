ALTER TABLE `collections` ADD `language` text DEFAULT 'legacy' NOT NULL;--> statement-breakpoint
ALTER TABLE `collections` ADD `index_language` text;--> statement-breakpoint
ALTER TABLE `collections` ADD `building_language` text;