/**
 * Evaluation: a pipeline's saved test queries and the runs on them (docs/API.md, Evaluation).
 */
import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { collections } from "./pipelines";

/** A pipeline's saved test queries, each with the sources that should answer it (docs/API.md, Evaluation). */
export const evalSets = sqliteTable(
  "eval_sets",
  {
    id: text("id").primaryKey(),
    collectionId: text("collection_id")
      .notNull()
      .references(() => collections.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** A JSON array of {query, expectedSourceIds}. */
    queries: text("queries").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("eval_sets_collection_idx").on(t.collectionId, t.id)],
);

/** One run of a set (or a re-index's comparison of two generations on it), with its figures. */
export const evalRuns = sqliteTable(
  "eval_runs",
  {
    id: text("id").primaryKey(),
    setId: text("set_id")
      .notNull()
      .references(() => evalSets.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["run", "reindex"] }).notNull(),
    /** The figures, a JSON object (docs/API.md, Evaluation). */
    result: text("result").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("eval_runs_set_idx").on(t.setId, t.id)],
);

export type EvalSetRow = typeof evalSets.$inferSelect;
export type EvalRunRow = typeof evalRuns.$inferSelect;
