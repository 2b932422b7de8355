/**
 * Administration of accounts: list users, change a tier or administration, reset a
 * password, disable, enable and delete, each written to the audit log in the same
 * step. Used by /api/admin/* and by `ragd user …` alike (docs/API.md, Administration).
 * An administrator manages accounts, never reads another user's pipelines: nothing
 * here returns a pipeline, source or key.
 */
import type { TierName } from "../../config";
import type { Db } from "../../db/client";
import {
  collectionIdsOf,
  deleteUserRow,
  findUserWithStats,
  listUsersWithStats,
  updateUserAdmin,
  updateUserDisabled,
  updateUserPassword,
  updateUserTierById,
  type UserWithStats,
} from "../../db/repo/admin";
import { deleteSessionsOf, findUserByEmail } from "../../db/repo/users";
import type { User } from "../../db/schema";
import type { Store } from "../../db/store";
import { AppError, notFound } from "../../http/errors";
import { randomBase62 } from "../../tools/crypto";
import { Passwords } from "../auth/passwords";
import { createUser } from "../auth/service";
import { type Actor, type AuditAction, AuditLog, writeAudit } from "./audit";
import { InvitationService } from "./invitations";

export type { Actor } from "./audit";

export interface AdminUser {
  id: string;
  email: string;
  tier: TierName;
  isAdmin: boolean;
  disabled: boolean;
  disabledAt: string | null;
  createdAt: string;
  lastSignInAt: string | null;
  pipelineCount: number;
  chunkCount: number;
}

const TEMP_PASSWORD_LENGTH = 20;

/** What administration needs from the rest of ragd. */
export interface AdminHooks {
  /** Removes one collection with its rows, vector tables and files. */
  deleteCollection(id: string): Promise<unknown>;
  /** Ends open event streams of these collections (in this process). */
  closeStreams?(collectionIds: string[]): void;
}

export function presentAdminUser(s: UserWithStats): AdminUser {
  const u = s.user;
  return {
    id: u.id,
    email: u.email,
    tier: u.tier,
    isAdmin: u.isAdmin,
    disabled: u.disabledAt !== null,
    disabledAt: u.disabledAt,
    createdAt: u.createdAt,
    lastSignInAt: u.lastSignInAt,
    pipelineCount: s.pipelineCount,
    chunkCount: s.chunkCount,
  };
}

/** The 409 of a change that would leave the install without an enabled administrator. */
const lastAdmin = (what: string) =>
  new AppError("conflict", `cannot ${what} the last administrator; make another account an administrator first`);

/** The settings administration reads: new accounts' tier, and where links point. */
export interface AdminSettings {
  /** RAGD_DEFAULT_TIER: the tier of an account or invitation made without one. */
  defaultTier: TierName;
  /** The server's public base URL (invitation links); the command line has none. */
  baseUrl?: () => string;
  /** How passwords are hashed: at the configured cost (Config.passwordCost); the default's without. */
  passwords?: Passwords;
}

export interface NewAccount {
  email: string;
  password: string;
  tier?: TierName;
  isAdmin?: boolean;
}

export class AdminService {
  readonly audit: AuditLog;
  readonly invitations: InvitationService;
  private readonly passwords: Passwords;

  constructor(
    private readonly db: Store,
    private readonly hooks: AdminHooks,
    private readonly settings: AdminSettings = { defaultTier: "free" },
  ) {
    this.audit = new AuditLog(db);
    const baseUrl = settings.baseUrl ?? (() => "");
    this.passwords = settings.passwords ?? new Passwords();
    this.invitations = new InvitationService(db, {
      defaultTier: settings.defaultTier,
      baseUrl,
      passwords: this.passwords,
    });
  }

  /** The acting administrator behind a session; 403 forbidden for any other user. */
  static actorOf(user: User): Actor {
    if (!user.isAdmin) throw new AppError("forbidden", "only an administrator may do this");
    return { id: user.id, label: user.email };
  }

  async listUsers(): Promise<AdminUser[]> {
    return (await listUsersWithStats(this.db.reader)).map(presentAdminUser);
  }

  /** One user; 404 when none. `db` is a transaction's, to read what it wrote. */
  async getUser(id: string, db: Db = this.db.reader): Promise<AdminUser> {
    const found = await findUserWithStats(db, id);
    if (!found) throw notFound("user");
    return presentAdminUser(found);
  }

  /** The id of the user with this email (any case); 404 when none. */
  async idByEmail(email: string): Promise<string> {
    const u = await findUserByEmail(this.db.reader, email);
    if (!u) throw new AppError("not_found", `no user with email ${email}`);
    return u.id;
  }

  // Each change reads the user in its own transaction: what it records as before is
  // what it changed, and a user deleted meanwhile is a 404.
  async setTier(actor: Actor, id: string, tier: TierName): Promise<AdminUser> {
    return await this.db.atomically(async (tx) => {
      const before = await this.getUser(id, tx);
      if (before.tier === tier) return before;
      await updateUserTierById(tx, id, tier);
      await this.record(tx, actor, "user.tier_changed", before, { from: before.tier, to: tier });
      return await this.getUser(id, tx);
    });
  }

  async setAdmin(actor: Actor, id: string, isAdmin: boolean): Promise<AdminUser> {
    return await this.db.atomically(async (tx) => {
      const before = await this.getUser(id, tx);
      if (before.isAdmin === isAdmin) return before;
      const res = await updateUserAdmin(tx, id, isAdmin);
      if (res === "last_admin") throw lastAdmin("demote");
      if (res === "missing") throw notFound("user");
      await this.record(tx, actor, isAdmin ? "user.admin_granted" : "user.admin_revoked", before);
      return await this.getUser(id, tx);
    });
  }

  /**
   * Replaces the password with a random temporary one, shown only in this result,
   * and ends the user's sessions: whoever held the old password is signed out. The
   * user is asked to choose their own at the next sign-in (mustChangePassword).
   */
  async resetPassword(actor: Actor, id: string): Promise<{ user: AdminUser; temporaryPassword: string }> {
    await this.getUser(id);
    const temporaryPassword = randomBase62(TEMP_PASSWORD_LENGTH);
    const hash = await this.passwords.hash(temporaryPassword);
    const user = await this.db.atomically(async (tx) => {
      const before = await this.getUser(id, tx);
      await updateUserPassword(tx, id, hash, true);
      await deleteSessionsOf(tx, id);
      await this.record(tx, actor, "user.password_reset", before);
      return await this.getUser(id, tx);
    });
    return { user, temporaryPassword };
  }

  /** Disables (ending sessions; keys stop answering) or enables an account. */
  async setDisabled(actor: Actor, id: string, disabled: boolean): Promise<AdminUser> {
    const { user, changed } = await this.db.atomically(async (tx) => {
      const before = await this.getUser(id, tx);
      if (before.disabled === disabled) return { user: before, changed: false };
      const res = await updateUserDisabled(tx, id, disabled ? new Date().toISOString() : null);
      if (res === "last_admin") throw lastAdmin("disable");
      if (res === "missing") throw notFound("user");
      if (disabled) await deleteSessionsOf(tx, id);
      await this.record(tx, actor, disabled ? "user.disabled" : "user.enabled", before);
      return { user: await this.getUser(id, tx), changed: true };
    });
    if (changed && disabled) this.hooks.closeStreams?.(await collectionIdsOf(this.db.reader, id));
    return user;
  }

  /**
   * Deletes a user with everything they own. `confirm` must be their email: a
   * deletion cannot be undone. The account is disabled first (which is also the
   * last-administrator guard), so nothing new is made while its collections go.
   */
  async deleteUser(actor: Actor, id: string, confirm: string | undefined): Promise<{ deleted: true; id: string }> {
    const before = await this.getUser(id);
    if ((confirm ?? "").trim().toLowerCase() !== before.email.toLowerCase()) {
      const message = `to delete ${before.email}, confirm with their email address`;
      throw new AppError("invalid_request", `confirm: ${message}`, [{ field: "confirm", message }]);
    }
    await this.db.atomically(async (tx) => {
      const res = await updateUserDisabled(tx, id, new Date().toISOString());
      if (res === "last_admin") throw lastAdmin("delete");
      if (res === "missing") throw notFound("user");
      await deleteSessionsOf(tx, id);
    });
    // Again until none is left: a request that passed its session check before the
    // disable may still have made a pipeline while the others were going.
    const owners = () => collectionIdsOf(this.db.reader, id);
    for (let owned = await owners(); owned.length > 0; owned = await owners()) {
      this.hooks.closeStreams?.(owned);
      for (const collectionId of owned) await this.hooks.deleteCollection(collectionId);
    }
    await this.db.atomically(async (tx) => {
      // A second deletion of the same user, running beside this one, finds it gone: 404.
      await this.getUser(id, tx);
      await deleteUserRow(tx, id);
      await this.record(tx, actor, "user.deleted", before, {
        pipelines: before.pipelineCount,
        chunks: before.chunkCount,
      });
    });
    return { deleted: true, id };
  }

  /**
   * Creates an account with a password an administrator chose (POST /api/admin/users):
   * the user is asked to pick their own at the first sign-in, as after a reset, since
   * the administrator knows this one. Tier: RAGD_DEFAULT_TIER unless given.
   */
  async createAccount(actor: Actor, account: NewAccount): Promise<AdminUser> {
    const tier = account.tier ?? this.settings.defaultTier;
    const user = await createUser(
      this.db,
      account.email,
      account.password,
      tier,
      account.isAdmin ?? false,
      this.passwords,
    );
    return await this.db.atomically(async (tx) => {
      await updateUserPassword(tx, user.id, user.passwordHash, true);
      const created = await this.getUser(user.id, tx);
      await this.record(tx, actor, "user.created", created, { tier: created.tier, isAdmin: created.isAdmin });
      return created;
    });
  }

  /** Records an account created by an administrator (the command line). */
  async recordCreated(actor: Actor, id: string): Promise<void> {
    await this.db.atomically(async (tx) => this.record(tx, actor, "user.created", await this.getUser(id, tx)));
  }

  private async record(db: Db, actor: Actor, action: AuditAction, target: AdminUser, details = {}): Promise<void> {
    await writeAudit(db, actor, action, target, details);
  }
}
