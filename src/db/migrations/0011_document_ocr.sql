ALTER TABLE `collections` ADD `ocr_languages` text;--> statement-breakpoint
ALTER TABLE `documents` ADD `progress_unit` text DEFAULT 'chunks' NOT NULL;--> statement-breakpoint
ALTER TABLE `documents` ADD `ocr` text;