CREATE TABLE "invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"email" text NOT NULL,
	"tier" text NOT NULL,
	"is_admin" boolean DEFAULT false NOT NULL,
	"created_at" text NOT NULL,
	"expires_at" text NOT NULL,
	"created_by" text NOT NULL,
	"used_at" text,
	"user_id" text,
	"revoked_at" text
);
--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_token_unique" ON "invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "invitations_created_idx" ON "invitations" USING btree ("created_at");