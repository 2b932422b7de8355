/**
 * The opt-in query log (docs/API.md, "Query log and insight"): one row per search of a
 * collection whose log is on, with what was asked and how it went, never the results.
 * Rows go with their collection (ON DELETE CASCADE) and after its retention (the
 * scheduler's query-log-purge, features/insight/query-log.ts).
 */
import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { collections } from "./pipelines";

export const queryLog = sqliteTable(
  "query_log",
  {
    id: text("id").primaryKey(),
    collectionId: text("collection_id")
      .notNull()
      .references(() => collections.id, { onDelete: "cascade" }),
    /** When the search was answered, ISO 8601. */
    at: text("at").notNull(),
    /** The query as searched (trimmed). */
    query: text("query").notNull(),
    mode: text("mode").notNull(),
    /** The request's filter, JSON; null when it had none. */
    filter: text("filter"),
    resultCount: integer("result_count").notNull(),
    /** The best result's score; null when nothing was found. */
    topScore: real("top_score"),
    latencyMs: real("latency_ms").notNull(),
    /** Which door: the query endpoint, the owner's playground, knowledge-base search or MCP. */
    door: text("door", { enum: ["query", "playground", "kb", "mcp"] }).notNull(),
    /** The API key's name, or "owner" for the signed-in owner. */
    caller: text("caller").notNull(),
    /** No result reached the relevance floor (the answer's noRelevantResults). */
    noRelevant: integer("no_relevant", { mode: "boolean" }).notNull(),
  },
  (t) => [index("query_log_collection_at_idx").on(t.collectionId, t.at)],
);

export type QueryLogRow = typeof queryLog.$inferSelect;
