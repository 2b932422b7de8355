ALTER TABLE `collections` ADD `index_model` text;--> statement-breakpoint
ALTER TABLE `collections` ADD `building_generation` integer;--> statement-breakpoint
ALTER TABLE `collections` ADD `building_model` text;