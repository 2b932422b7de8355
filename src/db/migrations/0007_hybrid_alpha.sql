ALTER TABLE `collections` ADD `hybrid_alpha` real;--> statement-breakpoint
ALTER TABLE `collections` ADD `rerank_model` text;