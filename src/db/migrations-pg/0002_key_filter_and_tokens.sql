ALTER TABLE "api_keys" ADD COLUMN "filter" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "token_secret" text;