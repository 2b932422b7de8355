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
  insertAudit,
  listUsersWithStats,
  updateUserAdmin,
  updateUserDisabled,
  updateUserPassword,
  updateUserTierById,
  type UserWithStats,
} from "../../db/repo/admin";
import { deleteSessionsOf, findUserByEmail } from "../../db/repo/users";
import type { User } from "../../db/schema";
import { AppError, notFound } from "../../http/errors";
import { randomBase62 } from "../../tools/crypto";
import { type Actor, type AuditAction, AuditLog } from "./audit";

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
  deleteCollection(id: string): Promise<void>;
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

export class AdminService {
  readonly audit: AuditLog;

  constructor(
    private readonly db: Db,
    private readonly hooks: AdminHooks,
  ) {
    this.audit = new AuditLog(db);
  }

  /** The acting administrator behind a session; 403 forbidden for any other user. */
  static actorOf(user: User): Actor {
    if (!user.isAdmin) throw new AppError("forbidden", "only an administrator may do this");
    return { id: user.id, label: user.email };
  }

  listUsers(): AdminUser[] {
    return listUsersWithStats(this.db).map(presentAdminUser);
  }

  getUser(id: string): AdminUser {
    const found = findUserWithStats(this.db, id);
    if (!found) throw notFound("user");
    return presentAdminUser(found);
  }

  /** The id of the user with this email (any case); 404 when none. */
  idByEmail(email: string): string {
    const u = findUserByEmail(this.db, email);
    if (!u) throw new AppError("not_found", `no user with email ${email}`);
    return u.id;
  }

  setTier(actor: Actor, id: string, tier: TierName): AdminUser {
    const before = this.getUser(id);
    if (before.tier === tier) return before;
    this.db.transaction((tx) => {
      updateUserTierById(tx as unknown as Db, id, tier);
      this.record(tx as unknown as Db, actor, "user.tier_changed", before, { from: before.tier, to: tier });
    });
    return this.getUser(id);
  }

  setAdmin(actor: Actor, id: string, isAdmin: boolean): AdminUser {
    const before = this.getUser(id);
    if (before.isAdmin === isAdmin) return before;
    this.db.transaction((tx) => {
      const res = updateUserAdmin(tx as unknown as Db, id, isAdmin);
      if (res === "last_admin") throw lastAdmin("demote");
      if (res === "missing") throw notFound("user");
      this.record(tx as unknown as Db, actor, isAdmin ? "user.admin_granted" : "user.admin_revoked", before);
    });
    return this.getUser(id);
  }

  /**
   * Replaces the password with a random temporary one, shown only in this result,
   * and ends the user's sessions: whoever held the old password is signed out. The
   * user is asked to choose their own at the next sign-in (mustChangePassword).
   */
  async resetPassword(actor: Actor, id: string): Promise<{ user: AdminUser; temporaryPassword: string }> {
    const before = this.getUser(id);
    const temporaryPassword = randomBase62(TEMP_PASSWORD_LENGTH);
    const hash = await Bun.password.hash(temporaryPassword, { algorithm: "argon2id" });
    this.db.transaction((tx) => {
      updateUserPassword(tx as unknown as Db, id, hash, true);
      deleteSessionsOf(tx as unknown as Db, id);
      this.record(tx as unknown as Db, actor, "user.password_reset", before);
    });
    return { user: this.getUser(id), temporaryPassword };
  }

  /** Disables (ending sessions; keys stop answering) or enables an account. */
  setDisabled(actor: Actor, id: string, disabled: boolean): AdminUser {
    const before = this.getUser(id);
    if (before.disabled === disabled) return before;
    this.db.transaction((tx) => {
      const t = tx as unknown as Db;
      const res = updateUserDisabled(t, id, disabled ? new Date().toISOString() : null);
      if (res === "last_admin") throw lastAdmin("disable");
      if (res === "missing") throw notFound("user");
      if (disabled) deleteSessionsOf(t, id);
      this.record(t, actor, disabled ? "user.disabled" : "user.enabled", before);
    });
    if (disabled) this.hooks.closeStreams?.(collectionIdsOf(this.db, id));
    return this.getUser(id);
  }

  /**
   * Deletes a user with everything they own. `confirm` must be their email: a
   * deletion cannot be undone. The account is disabled first (which is also the
   * last-administrator guard), so nothing new is made while its collections go.
   */
  async deleteUser(actor: Actor, id: string, confirm: string | undefined): Promise<{ deleted: true; id: string }> {
    const before = this.getUser(id);
    if ((confirm ?? "").trim().toLowerCase() !== before.email.toLowerCase()) {
      const message = `to delete ${before.email}, confirm with their email address`;
      throw new AppError("invalid_request", `confirm: ${message}`, [{ field: "confirm", message }]);
    }
    this.db.transaction((tx) => {
      const res = updateUserDisabled(tx as unknown as Db, id, new Date().toISOString());
      if (res === "last_admin") throw lastAdmin("delete");
      if (res === "missing") throw notFound("user");
      deleteSessionsOf(tx as unknown as Db, id);
    });
    // Again until none is left: a request that passed its session check before the
    // disable may still have made a pipeline while the others were going.
    for (let owned = collectionIdsOf(this.db, id); owned.length > 0; owned = collectionIdsOf(this.db, id)) {
      this.hooks.closeStreams?.(owned);
      for (const collectionId of owned) await this.hooks.deleteCollection(collectionId);
    }
    this.db.transaction((tx) => {
      deleteUserRow(tx as unknown as Db, id);
      this.record(tx as unknown as Db, actor, "user.deleted", before, {
        pipelines: before.pipelineCount,
        chunks: before.chunkCount,
      });
    });
    return { deleted: true, id };
  }

  /** Records an account created by an administrator (the command line). */
  recordCreated(actor: Actor, id: string): void {
    this.record(this.db, actor, "user.created", this.getUser(id));
  }

  private record(db: Db, actor: Actor, action: AuditAction, target: AdminUser, details = {}): void {
    insertAudit(db, {
      at: new Date().toISOString(),
      actorId: actor.id,
      actor: actor.label,
      action,
      targetId: target.id,
      targetEmail: target.email,
      details: JSON.stringify(details),
    });
  }
}
