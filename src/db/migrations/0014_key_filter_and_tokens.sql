ALTER TABLE `api_keys` ADD `filter` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `token_secret` text;