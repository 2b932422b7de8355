/**
 * `npm run db:generate -- --name <what_changed>`: after editing src/db/schema.ts, writes
 * the migration of both histories under the one name (SQLite's from schema.ts, PostgreSQL's
 * from the tables src/db/pg-schema.ts derives from it), then embeds them. Other drizzle-kit
 * flags (e.g. --custom, for a data-only step) go to both. test/pg-schema.test.ts fails
 * while either history lags behind schema.ts or their names differ.
 */
import { $ } from "bun";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const args = process.argv.slice(2);
const at = args.indexOf("--name");
if (at < 0 || !/^[a-z0-9_]+$/.test(args[at + 1] ?? "")) {
  console.error("usage: npm run db:generate -- --name <what_changed> [--custom]  (lower case, digits, _)");
  process.exit(2);
}
const kit = join(root, "node_modules", ".bin", "drizzle-kit");
for (const config of ["drizzle.config.ts", "drizzle.pg.config.ts"]) {
  await $`${kit} generate --config ${config} ${args}`.cwd(root);
}
await $`bun ${join(root, "scripts", "embed-migrations.ts")}`.cwd(root);
