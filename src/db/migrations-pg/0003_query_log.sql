CREATE TABLE "query_log" (
	"id" text PRIMARY KEY NOT NULL,
	"collection_id" text NOT NULL,
	"at" text NOT NULL,
	"query" text NOT NULL,
	"mode" text NOT NULL,
	"filter" text,
	"result_count" integer NOT NULL,
	"top_score" double precision,
	"latency_ms" double precision NOT NULL,
	"door" text NOT NULL,
	"caller" text NOT NULL,
	"no_relevant" boolean NOT NULL
);
--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "query_log" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "query_log_days" integer DEFAULT 30 NOT NULL;--> statement-breakpoint
ALTER TABLE "query_log" ADD CONSTRAINT "query_log_collection_id_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."collections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "query_log_collection_at_idx" ON "query_log" USING btree ("collection_id","at");