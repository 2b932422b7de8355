import { defineConfig } from "drizzle-kit";

// The PostgreSQL history, generated from the tables src/db/pg-schema.ts derives from
// src/db/schema.ts; scripts/generate-migrations.ts runs this beside drizzle.config.ts.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/pg-schema.ts",
  out: "./src/db/migrations-pg",
});
