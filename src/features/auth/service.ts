/**
 * Accounts and sessions: sign-up, sign-in with a failure limit, session tokens
 * (random, 256 bits, only their SHA-256 stored, sliding 30-day lifetime).
 */
import type { Config, TierName } from "../../config";
import { updateUserPassword } from "../../db/repo/admin";
import {
  anyUser,
  deleteExpiredSessions,
  deleteSessionsOf,
  deleteSession,
  extendSession,
  findUserByEmail,
  findUserById,
  findUserBySession,
  insertSession,
  insertUser,
  touchSignIn,
} from "../../db/repo/users";
import type { User } from "../../db/schema";
import type { Store } from "../../db/store";
import { Passwords } from "./passwords";
import { AppError } from "../../http/errors";
import { randomToken, sha256 } from "../../tools/crypto";
import { FailureLimiter } from "../../tools/rate-limit";

import { SESSION_DAYS } from "./cookie";

export { SESSION_COOKIE } from "./cookie";
const DAY_MS = 86_400_000;

export interface PublicUser {
  id: string;
  email: string;
  tier: TierName;
  /** Administrators manage accounts and have no pipeline limit (docs/API.md, Administration). */
  isAdmin: boolean;
  /** After an administrator's password reset: the user should choose a password of their own. */
  mustChangePassword: boolean;
  createdAt: string;
}

export const publicUser = (u: User): PublicUser => ({
  id: u.id,
  email: u.email,
  tier: u.tier,
  isAdmin: u.isAdmin,
  mustChangePassword: u.mustChangePassword,
  createdAt: u.createdAt,
});

/** The error a disabled account's sign-in, session or key gets. */
export const accountDisabled = () =>
  new AppError("account_disabled", "this account is disabled; ask an administrator to enable it");

/**
 * Creates a user; used by sign-up and by `ragd user create`. The first account of an
 * install is an administrator whatever `admin` says (see insertUser).
 */
export async function createUser(
  db: Store,
  email: string,
  password: string,
  tier: TierName,
  admin = false,
  passwords = new Passwords(),
): Promise<User> {
  if (await findUserByEmail(db.reader, email)) {
    throw new AppError("conflict", `a user with email ${email} already exists`);
  }
  const row = {
    id: Bun.randomUUIDv7(),
    email: email.trim(),
    passwordHash: await passwords.hash(password),
    tier,
    createdAt: new Date().toISOString(),
  };
  try {
    return await db.atomically((tx) => insertUser(tx, row, admin));
  } catch (err) {
    // Two sign-ups racing for one email: the unique index decides.
    if (String(err).includes("UNIQUE")) throw new AppError("conflict", `a user with email ${email} already exists`);
    throw err;
  }
}

/** Failed sign-ins allowed in the window: per (email, client address), and per address. */
export const SIGN_IN_LIMITS = { perEmailAndAddress: 10, perAddress: 50, windowMs: 15 * 60_000 };

export class AuthService {
  // Counted per (email, address) and per address, never per email alone: a stranger's
  // failures must not lock the owner out (docs/API.md, "Sign-in limits").
  private readonly pairFailures = new FailureLimiter(SIGN_IN_LIMITS.perEmailAndAddress, SIGN_IN_LIMITS.windowMs);
  private readonly addressFailures = new FailureLimiter(SIGN_IN_LIMITS.perAddress, SIGN_IN_LIMITS.windowMs);

  constructor(
    private readonly db: Store,
    private readonly config: Pick<Config, "signup" | "defaultTier" | "passwordLogin" | "oidcIssuer">,
    private readonly passwords: Passwords = new Passwords(),
  ) {}

  /** True while no account exists: the first one created becomes the administrator (insertUser). */
  async awaitsFirstAccount(): Promise<boolean> {
    return !(await anyUser(this.db.reader));
  }

  async signup(email: string, password: string): Promise<{ user: User; token: string }> {
    this.checkPasswordsOn();
    if (this.config.signup === "closed") {
      throw new AppError(
        "signup_closed",
        "sign-up is closed on this server; ask an administrator to create your account",
      );
    }
    // Single sign-on joins accounts by email, and a sign-up proves no email: someone could
    // otherwise make a colleague's account before their first single sign-on, and keep its password.
    if (this.config.oidcIssuer !== null) {
      throw new AppError(
        "signup_closed",
        "with single sign-on on, an account is made by signing in through the identity provider",
      );
    }
    const user = await createUser(this.db, email, password, this.config.defaultTier, false, this.passwords);
    return { user, token: await this.startSession(user.id) };
  }

  /** Signs in; `client` is the caller's address key (see http/client-address.ts). */
  async login(email: string, password: string, client: string): Promise<{ user: User; token: string }> {
    this.checkPasswordsOn();
    const pair = this.guessesAllowed(email, client);
    const user = await findUserByEmail(this.db.reader, email);
    // Verified against a dummy hash when the user is unknown, so timing does not tell.
    const ok = await this.passwords.verify(password, user?.passwordHash);
    if (!user || !ok) {
      this.wrongGuess(pair, client);
      throw new AppError("unauthenticated", "wrong email or password");
    }
    // Told only after the right password: a stranger learns nothing about the account.
    if (user.disabledAt) throw accountDisabled();
    // Only the pair is forgiven: signing in to one's own account must not reset the
    // address's count of guesses at others.
    this.pairFailures.reset(pair);
    return { user, token: await this.startSession(user.id) };
  }

  /**
   * Changes the signed-in user's password after checking the current one, clears a
   * pending change after a reset, and ends every other session of theirs.
   */
  async changePassword(user: User, token: string, current: string, next: string, client: string): Promise<User> {
    // With passwords off, a password set here would open a door the operator closed.
    this.checkPasswordsOn();
    // A borrowed session must not become a way to guess the password without limit:
    // these guesses count against the same budget as sign-ins.
    const pair = this.guessesAllowed(user.email, client);
    if (!(await this.passwords.verify(current, user.passwordHash))) {
      this.wrongGuess(pair, client);
      const message = "is not your current password";
      throw new AppError("invalid_request", `currentPassword: ${message}`, [{ field: "currentPassword", message }]);
    }
    // Keeping an administrator's temporary password would clear the pending change while
    // the administrator still knows the password.
    if (next === current) {
      const message = "must differ from your current password";
      throw new AppError("invalid_request", `newPassword: ${message}`, [{ field: "newPassword", message }]);
    }
    const hash = await this.passwords.hash(next);
    await this.db.atomically(async (tx) => {
      await updateUserPassword(tx, user.id, hash, false);
      await deleteSessionsOf(tx, user.id, sha256(token));
    });
    return { ...user, passwordHash: hash, mustChangePassword: false };
  }

  /**
   * Signs in the person whose email the identity provider verified: the account with
   * that email (any case), or a new one with the default tier when sign-up is open.
   * The new account's password is random and never shown, so only single sign-on
   * (or a password set later through the CLI) gets in.
   */
  async signInVerified(email: string): Promise<{ user: User; token: string; created: boolean }> {
    let user = await findUserByEmail(this.db.reader, email);
    let created = false;
    if (!user) {
      if (this.config.signup === "closed") {
        throw new AppError("signup_closed", `there is no account for ${email}; ask an administrator to create it`);
      }
      try {
        user = await createUser(this.db, email, randomToken(32), this.config.defaultTier, false, this.passwords);
        created = true;
      } catch (err) {
        // The same person's second tab got there first: use the account it made.
        user = await findUserByEmail(this.db.reader, email);
        if (!user) throw err;
      }
    }
    if (user.disabledAt) throw accountDisabled();
    return { user, token: await this.startSession(user.id), created };
  }

  /**
   * Throws 429 while the (email, address) pair or the address has used up its
   * failures (docs/API.md, "Sign-in limits"); returns the pair's key.
   */
  private guessesAllowed(email: string, client: string): string {
    const pair = `${email.trim().toLowerCase()} ${client}`;
    const wait = Math.max(this.pairFailures.retryAfter(pair), this.addressFailures.retryAfter(client));
    if (wait > 0) {
      throw new AppError("rate_limited", "too many failed password attempts; try again later", undefined, {
        "retry-after": String(wait),
      });
    }
    return pair;
  }

  private wrongGuess(pair: string, client: string): void {
    this.pairFailures.fail(pair);
    this.addressFailures.fail(client);
  }

  /** 403 password_login_disabled while passwords are off (RAGD_PASSWORD_LOGIN=off). */
  checkPasswordsOn(): void {
    if (this.config.passwordLogin === "off") {
      throw new AppError(
        "password_login_disabled",
        "passwords are turned off on this server; sign in with single sign-on",
      );
    }
  }

  /** Deletes sessions past their expiry; run by the hourly housekeeping. */
  async pruneSessions(): Promise<void> {
    const now = new Date().toISOString();
    await this.db.atomically((tx) => deleteExpiredSessions(tx, now));
  }

  async logout(token: string | undefined): Promise<void> {
    if (token) await this.db.atomically((tx) => deleteSession(tx, sha256(token)));
  }

  /**
   * The user of a live session. The expiry slides forward at most once a day;
   * `renewed` says so, and the caller then sends the cookie again with a fresh Max-Age.
   */
  async userForToken(token: string): Promise<{ user: User; renewed: boolean } | undefined> {
    const now = Date.now();
    const hash = sha256(token);
    const found = await findUserBySession(this.db.reader, hash, new Date(now).toISOString());
    if (!found) return undefined;
    // Disabling ends the sessions too; this covers a request racing the disable.
    if (found.user.disabledAt) throw accountDisabled();
    const renewed = Date.parse(found.expiresAt) < now + (SESSION_DAYS - 1) * DAY_MS;
    if (renewed) {
      const expiresAt = new Date(now + SESSION_DAYS * DAY_MS).toISOString();
      // A session ended meanwhile stays ended: the update finds no row.
      await this.db.atomically((tx) => extendSession(tx, hash, expiresAt));
    }
    return { user: found.user, renewed };
  }

  /** Whether the session of `token` is still live (not signed out, ended or expired), without renewing it. */
  async sessionLive(token: string): Promise<boolean> {
    return (await findUserBySession(this.db.reader, sha256(token), new Date().toISOString())) !== undefined;
  }

  /**
   * Starts a session and records the sign-in; the token goes into the cookie.
   * An account deleted since its check gets the answer of an unknown session (401).
   */
  async startSession(userId: string): Promise<string> {
    const token = randomToken(32);
    const now = Date.now();
    await this.db.atomically(async (tx) => {
      if (!(await findUserById(tx, userId))) throw new AppError("unauthenticated", "this account no longer exists");
      await touchSignIn(tx, userId, new Date(now).toISOString());
      await insertSession(tx, {
        tokenHash: sha256(token),
        userId,
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + SESSION_DAYS * DAY_MS).toISOString(),
      });
    });
    return token;
  }
}
