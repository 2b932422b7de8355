CREATE TABLE `document_texts` (
	`document_id` text PRIMARY KEY NOT NULL,
	`content` text NOT NULL,
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `documents` ADD `content_length` integer;--> statement-breakpoint
INSERT INTO `document_texts` (`document_id`, `content`) SELECT `id`, `content` FROM `documents` WHERE `content` IS NOT NULL;
--> statement-breakpoint
UPDATE `documents` SET `content_length` = length(`content`) WHERE `content` IS NOT NULL;
