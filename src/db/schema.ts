/**
 * Every table ragd stores in SQLite. Pipelines and knowledge bases are both
 * "collections" (one engine, two faces); their sources/documents are "documents".
 * Timestamps are ISO 8601 strings (UTC), ids are UUIDv7 strings (time-ordered).
 *
 * The tables live in src/db/tables/ by area; this file gathers them, and is what
 * drizzle-kit (drizzle.config.ts), src/db/pg-schema.ts and the rest of ragd read.
 */
export * from "./tables/accounts";
export * from "./tables/pipelines";
export * from "./tables/work";
export * from "./tables/evals";
export * from "./tables/insight";
