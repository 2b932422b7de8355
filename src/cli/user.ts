/**
 * `ragd user create --email E [--password P] [--tier T] [--admin] [--init]` and
 * `ragd user set-tier --email E --tier T` (the other administration commands are in
 * user-admin.ts). They open the same database as the
 * server (WAL mode, with a busy timeout) and take no lock, so they work while a
 * server runs.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, type Config, type TierName } from "../config";
import { servesAsReplica } from "../config-storage";
import { openStore } from "../db/client";
import { openPgStore } from "../db/pg-store";
import type { Store } from "../db/store";
import { AdminService } from "../features/admin/service";
import { createUser } from "../features/auth/service";
import { AppError } from "../http/errors";
import { readPassword } from "./password-input";
import { cliActor, withAdmin } from "./user-admin";

const TIERS: TierName[] = ["free", "pro", "unlimited"];

function tierOf(raw: string | undefined, fallback?: TierName): TierName {
  if (raw === undefined && fallback) return fallback;
  if (!TIERS.includes(raw as TierName)) throw new ConfigError(`--tier must be one of ${TIERS.join(", ")}`);
  return raw as TierName;
}

export function need(flags: Record<string, string>, name: string): string {
  const v = flags[name];
  if (!v) throw new ConfigError(`--${name} is required`);
  return v;
}

/**
 * Opens the metadata: the PostgreSQL database of RAGD_DATABASE_URL, or the data
 * directory's, refusing a directory with no ragd.db: a mistyped --data-dir would
 * otherwise get a new, empty installation. `init` (--init) allows it.
 */
export async function openExisting(config: Config, init: boolean, hint: string): Promise<Store> {
  // Beside replicas, its transactions take their turn with theirs (PgStore `shared`).
  if (config.databaseUrl) return openPgStore(config.databaseUrl, { shared: servesAsReplica(config) });
  const dataDir = config.dataDir;
  if (!init && !existsSync(join(dataDir, "ragd.db"))) {
    throw new ConfigError(`no ragd data in ${dataDir} (it has no ragd.db); check --data-dir${hint}`);
  }
  return openStore(dataDir);
}

/**
 * `ragd user create`; `admin` (--admin) makes an administrator, as the first account
 * always is. The tier is --tier, else RAGD_DEFAULT_TIER.
 */
export async function userCreateCommand(
  config: Config,
  flags: Record<string, string>,
  init = false,
  admin = false,
): Promise<number> {
  const email = need(flags, "email");
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new ConfigError(`--email "${email}" is not an email address`);
  const tier = tierOf(flags.tier, config.defaultTier);
  // Without --password: a prompt without echo, or standard input (password-input.ts).
  const password = flags.password ?? (await readPassword());
  if (password.length < 8) throw new ConfigError("the password must be at least 8 characters");
  const db = await openExisting(config, init, ", or add --init to start a new data directory there");
  try {
    const user = await createUser(db, email, password, tier, admin);
    await new AdminService(db, { deleteCollection: async () => {} }).recordCreated(cliActor(), user.id);
    const role = user.isAdmin ? ", administrator" : "";
    console.log(`created user ${user.email} (${user.tier}${role}), id ${user.id}`);
    return 0;
  } catch (err) {
    if (err instanceof AppError && err.code === "conflict") {
      console.error(`ragd: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await db.close();
  }
}

export function userSetTierCommand(config: Config, flags: Record<string, string>): Promise<number> {
  const email = need(flags, "email");
  const tier = tierOf(need(flags, "tier"));
  return withAdmin(config, async (admin, actor) => {
    const u = await admin.setTier(actor, await admin.idByEmail(email), tier);
    console.log(`${u.email} is now on the ${u.tier} tier`);
  });
}
