/**
 * The administration commands: `ragd user list | set-admin | reset-password |
 * disable | enable | delete` and `ragd admin audit`. Each is a thin wrapper over
 * AdminService, the same code as /api/admin, acting as "cli (<os user>)" in the
 * audit log. Like `ragd user create`, they work beside a running server: the server
 * reads an account's state on every session and key check, so a change here holds
 * there at once.
 */
import type { Config } from "../config";
import { ConfigError } from "../config";
import { Collections } from "../core/collections";
import type { Store } from "../db/store";
import { type Actor, AdminService, type AdminUser } from "../features/admin/service";
import { objectStorage } from "../config-storage";
import { DiskFileStore } from "../files/disk-store";
import { ObjectFileStore } from "../files/object-store";
import { AppError } from "../http/errors";
import { systemAccountName } from "../tools/system-account";
import { openLance } from "../vectors/connection";
import { collectionPrefix } from "../vectors/tables";
import { need, openExisting } from "./user";

/** The command line as an actor: the system account that ran it (its effective uid's passwd entry). */
export function cliActor(): Actor {
  return { id: null, label: `cli (${systemAccountName()})` };
}

/**
 * Deleting a collection from the command line: its rows, then its files and its
 * LanceDB tables, as the server does. A server running beside it never writes them
 * again: its ingestion checks, right before each write, that the document still exists.
 */
function cliCollections(db: Store, config: Config): Collections {
  const collections = new Collections(db);
  // The server's files and tables: the data directory's, or the bucket's (RAGD_STORAGE_URL).
  const storage = objectStorage(config);
  const files = storage ? new ObjectFileStore(storage) : new DiskFileStore(config.dataDir);
  collections.onCollectionDeleted(async (id) => {
    await files.removeCollection(id);
    const lance = await openLance(storage ?? config.dataDir);
    try {
      const prefix = collectionPrefix(id);
      for (const name of await lance.tableNames()) if (name.startsWith(prefix)) await lance.dropTable(name);
    } finally {
      lance.close();
    }
  });
  return collections;
}

/** Runs `fn` with an AdminService on the data directory; a refused change prints one line and exits 1. */
export async function withAdmin(
  config: Config,
  fn: (admin: AdminService, actor: Actor) => unknown | Promise<unknown>,
): Promise<number> {
  const db = await openExisting(config, false, "");
  try {
    const collections = cliCollections(db, config);
    // Open event streams are the server's: it ends them at its next heartbeat.
    await fn(new AdminService(db, { deleteCollection: (id) => collections.deleteCollection(id) }), cliActor());
    return 0;
  } catch (err) {
    if (err instanceof AppError) {
      console.error(`ragd: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await db.close();
  }
}

function describe(u: AdminUser): string {
  const roles = [u.tier, u.isAdmin ? "administrator" : "", u.disabled ? "disabled" : ""].filter(Boolean);
  return `${u.email} (${roles.join(", ")})`;
}

/** `ragd user list`: one line per user, oldest first. */
export function userListCommand(config: Config): Promise<number> {
  return withAdmin(config, async (admin) => {
    const rows = await admin.listUsers();
    const width = Math.max(5, ...rows.map((u) => u.email.length));
    console.log(`${"EMAIL".padEnd(width)}  TIER       ADMIN  DISABLED  PIPELINES  CHUNKS  LAST SIGN-IN`);
    for (const u of rows) {
      const cols = [
        u.email.padEnd(width),
        u.tier.padEnd(9),
        (u.isAdmin ? "yes" : "no").padEnd(5),
        (u.disabled ? "yes" : "no").padEnd(8),
        String(u.pipelineCount).padStart(9),
        String(u.chunkCount).padStart(6),
        u.lastSignInAt ?? "never",
      ];
      console.log(cols.join("  "));
    }
  });
}

/** `ragd user set-admin --email E [--revoke]`. */
export function userSetAdminCommand(config: Config, flags: Record<string, string>, revoke: boolean): Promise<number> {
  const email = need(flags, "email");
  return withAdmin(config, async (admin, actor) => {
    const u = await admin.setAdmin(actor, await admin.idByEmail(email), !revoke);
    console.log(`${u.email} is ${u.isAdmin ? "now an administrator" : "no longer an administrator"}`);
  });
}

/** `ragd user reset-password --email E`: prints the temporary password once. */
export function userResetPasswordCommand(config: Config, flags: Record<string, string>): Promise<number> {
  const email = need(flags, "email");
  return withAdmin(config, async (admin, actor) => {
    const { user, temporaryPassword } = await admin.resetPassword(actor, await admin.idByEmail(email));
    console.error(`temporary password for ${user.email} (shown once; their sessions have ended):`);
    console.log(temporaryPassword);
  });
}

/** `ragd user disable --email E` and `ragd user enable --email E`. */
export function userSetDisabledCommand(
  config: Config,
  flags: Record<string, string>,
  disabled: boolean,
): Promise<number> {
  const email = need(flags, "email");
  return withAdmin(config, async (admin, actor) => {
    const u = await admin.setDisabled(actor, await admin.idByEmail(email), disabled);
    console.log(`${describe(u)} is ${disabled ? "disabled" : "enabled"}`);
  });
}

/** `ragd user delete --email E --confirm E`: the confirmation repeats the email. */
export function userDeleteCommand(config: Config, flags: Record<string, string>): Promise<number> {
  const email = need(flags, "email");
  if (!flags.confirm) throw new ConfigError(`--confirm is required: repeat the email (--confirm ${email})`);
  return withAdmin(config, async (admin, actor) => {
    await admin.deleteUser(actor, await admin.idByEmail(email), flags.confirm);
    console.log(`deleted ${email} and everything they owned`);
  });
}

/** `ragd admin audit [--after N]`: the audit log as JSON lines, oldest first. */
export function adminAuditCommand(config: Config, flags: Record<string, string>): Promise<number> {
  const after = flags.after === undefined ? 0 : Number(flags.after);
  if (!Number.isInteger(after) || after < 0) throw new ConfigError("--after must be an entry id (an integer ≥ 0)");
  return withAdmin(config, async (admin) => {
    for await (const line of admin.audit.lines(after)) console.log(line.slice(0, -1));
  });
}
