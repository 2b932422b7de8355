/**
 * `ragd migrate --database-url postgres://…` (not in the help while ragd cannot run on
 * PostgreSQL): brings a PostgreSQL database to this build's schema and says what it did.
 * Safe to run from several processes at once (src/db/pg-migrate.ts).
 */
import { SQL } from "bun";
import { type Config, ConfigError } from "../config";
import { redactPassword } from "../config-values";
import { migratePostgres } from "../db/pg-migrate";

export async function migrateCommand(config: Config): Promise<number> {
  const url = config.databaseUrl;
  if (!url) throw new ConfigError("ragd migrate needs --database-url or RAGD_DATABASE_URL (postgres://…)");
  const shown = redactPassword(url);
  const u = new URL(url);
  const secrets = [u.password, u.searchParams.get("password") ?? ""].flatMap((p) => [p, decodeURIComponent(p)]);
  // A driver's message may quote the connection string; the password never leaves.
  const scrub = (text: string) => secrets.reduce((t, p) => (p ? t.replaceAll(p, "***") : t), text);
  const sql = new SQL(url, { max: 1, connectionTimeout: 10 });
  try {
    const { applied, unknown } = await migratePostgres(sql);
    console.log(applied.length > 0 ? `applied ${applied.join(", ")} to ${shown}` : `${shown} is up to date`);
    if (unknown.length > 0)
      console.error(
        `ragd: ${shown} also has migrations this build does not know (${unknown.join(", ")}): a newer ragd`,
      );
    return 0;
  } catch (err) {
    console.error(scrub(`ragd: migrating ${shown} failed: ${err instanceof Error ? err.message : String(err)}`));
    return 1;
  } finally {
    await sql.close();
  }
}
