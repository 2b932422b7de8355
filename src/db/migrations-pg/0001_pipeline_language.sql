ALTER TABLE "collections" ADD COLUMN "language" text DEFAULT 'legacy' NOT NULL;--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "index_language" text;--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "building_language" text;