/**
 * Accounts: users, their sessions, and the audit log of administrative actions.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    tier: text("tier", { enum: ["free", "pro", "unlimited"] })
      .notNull()
      .default("free"),
    createdAt: text("created_at").notNull(),
    /** Administrators manage every account and have no pipeline limit (docs/API.md, Administration). */
    isAdmin: integer("is_admin", { mode: "boolean" }).notNull().default(false),
    /** Set while the account is disabled: no sign-in, no session, no key answers. */
    disabledAt: text("disabled_at"),
    lastSignInAt: text("last_sign_in_at"),
    /** Set by an administrator's password reset; cleared when the user picks their own. */
    mustChangePassword: integer("must_change_password", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [uniqueIndex("users_email_unique").on(sql`lower(${t.email})`)],
);

export const sessions = sqliteTable(
  "sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

/** Who did what administrative action when; kept after the accounts it names are gone. */
export const auditLog = sqliteTable("audit_log", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  at: text("at").notNull(),
  /** The administrator's user id; null for the command line. */
  actorId: text("actor_id"),
  /** The administrator's email, or "cli (<os user>)". */
  actor: text("actor").notNull(),
  action: text("action").notNull(),
  /** No foreign key: the entry outlives a deleted user. */
  targetId: text("target_id"),
  targetEmail: text("target_email"),
  /** Extra facts (old and new tier, …), a JSON object. */
  details: text("details").notNull().default("{}"),
});

export type User = typeof users.$inferSelect;
export type Session = typeof sessions.$inferSelect;
export type Tier = User["tier"];
export type AuditRow = typeof auditLog.$inferSelect;

/**
 * One-time links that let a person set their password and sign in (docs/API.md,
 * Invitations). Only the token's SHA-256 is kept, like a session's or a key's.
 */
export const invitations = sqliteTable(
  "invitations",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    email: text("email").notNull(),
    tier: text("tier", { enum: ["free", "pro", "unlimited"] }).notNull(),
    isAdmin: integer("is_admin", { mode: "boolean" }).notNull().default(false),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    /** Who made it: the administrator's email or "cli (<os user>)", as in the audit log. */
    createdBy: text("created_by").notNull(),
    usedAt: text("used_at"),
    /** The account made with it; no foreign key: the record outlives a deleted user. */
    userId: text("user_id"),
    revokedAt: text("revoked_at"),
  },
  (t) => [uniqueIndex("invitations_token_unique").on(t.tokenHash), index("invitations_created_idx").on(t.createdAt)],
);
export type Invitation = typeof invitations.$inferSelect;
