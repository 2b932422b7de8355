/**
 * Invitations (docs/API.md, Invitations): an administrator names an email (with a tier
 * and the administrator flag) and gets a one-time link, valid for a set time, to hand
 * over; ragd sends no mail. Opening it lets the person choose a password and signs them
 * in, whether sign-up is open or closed. The token is shown once: only its SHA-256 is
 * stored, as for sessions and API keys.
 */
import type { TierName } from "../../config";
import { findUserByEmail, insertUser } from "../../db/repo/users";
import {
  findInvitationByHash,
  findInvitationById,
  insertInvitation,
  listInvitations,
  revokeInvitation,
  useInvitation,
} from "../../db/repo/invitations";
import type { Invitation, User } from "../../db/schema";
import type { Store } from "../../db/store";
import { AppError, notFound } from "../../http/errors";
import { randomToken, sha256 } from "../../tools/crypto";
import { type Actor, writeAudit } from "./audit";
import type { Passwords } from "../auth/passwords";

/** Hours an invitation stays valid unless told otherwise, and the longest allowed (30 days). */
export const INVITATION_HOURS = { default: 72, max: 720 };
/** Invitations listed, newest first: enough for any install's pending ones. */
const LISTED = 500;
const HOUR_MS = 3_600_000;

export type InvitationStatus = "pending" | "used" | "expired" | "revoked";

export interface InvitationView {
  id: string;
  email: string;
  tier: TierName;
  isAdmin: boolean;
  status: InvitationStatus;
  createdAt: string;
  expiresAt: string;
  createdBy: string;
  usedAt: string | null;
  revokedAt: string | null;
  userId: string | null;
}

export interface InvitationRequest {
  email: string;
  tier?: TierName;
  isAdmin?: boolean;
  /** Hours until the link expires: 1..720, default 72. */
  expiresIn?: number;
}

export interface InvitationSettings {
  /** RAGD_DEFAULT_TIER: the tier of an invitation that names none. */
  defaultTier: TierName;
  /** The server's public base URL, for the link handed out. */
  baseUrl: () => string;
  passwords: Passwords;
}

function statusOf(i: Invitation, now = new Date().toISOString()): InvitationStatus {
  if (i.usedAt) return "used";
  if (i.revokedAt) return "revoked";
  return i.expiresAt <= now ? "expired" : "pending";
}

export function presentInvitation(i: Invitation): InvitationView {
  const { tokenHash: _hidden, ...rest } = i;
  return { ...rest, status: statusOf(i) };
}

/** The 410 of a link that cannot be used any more; `null` while it still can. */
function goneError(i: Invitation): AppError | null {
  switch (statusOf(i)) {
    case "used":
      return new AppError("invitation_used", "this invitation has been used already; sign in instead");
    case "revoked":
      return new AppError("invitation_revoked", "this invitation was revoked; ask an administrator for a new one");
    case "expired":
      return new AppError("invitation_expired", "this invitation has expired; ask an administrator for a new one");
    default:
      return null;
  }
}

const unknownToken = () => {
  const message = "is not an invitation of this server; check that the whole link was copied";
  return new AppError("invalid_request", `token: ${message}`, [{ field: "token", message }]);
};

export class InvitationService {
  constructor(
    private readonly db: Store,
    private readonly settings: InvitationSettings,
  ) {}

  /** Makes an invitation; the token (and the link built on it) are only in this answer. */
  async create(
    actor: Actor,
    req: InvitationRequest,
  ): Promise<{ invitation: InvitationView; token: string; url: string }> {
    const email = req.email.trim();
    if (await findUserByEmail(this.db.reader, email)) {
      throw new AppError("conflict", `a user with email ${email} already exists`);
    }
    const token = randomToken(32);
    const now = Date.now();
    const row: Invitation = {
      id: Bun.randomUUIDv7(),
      tokenHash: sha256(token),
      email,
      tier: req.tier ?? this.settings.defaultTier,
      isAdmin: req.isAdmin ?? false,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + (req.expiresIn ?? INVITATION_HOURS.default) * HOUR_MS).toISOString(),
      createdBy: actor.label,
      usedAt: null,
      userId: null,
      revokedAt: null,
    };
    await this.db.atomically(async (tx) => {
      await insertInvitation(tx, row);
      await writeAudit(tx, actor, "invitation.created", row, {
        tier: row.tier,
        isAdmin: row.isAdmin,
        expiresAt: row.expiresAt,
      });
    });
    const url = `${this.settings.baseUrl().replace(/\/+$/, "")}/#/invite/${token}`;
    return { invitation: presentInvitation(row), token, url };
  }

  /** The newest invitations first, with their status. */
  async list(): Promise<InvitationView[]> {
    return (await listInvitations(this.db.reader, LISTED)).map(presentInvitation);
  }

  /** Revokes an invitation not yet used; revoking twice is no error. 409 once used. */
  async revoke(actor: Actor, id: string): Promise<InvitationView> {
    return await this.db.atomically(async (tx) => {
      const found = await findInvitationById(tx, id);
      if (!found) throw notFound("invitation");
      if (found.usedAt) throw new AppError("conflict", "this invitation has been used already; it cannot be revoked");
      if (await revokeInvitation(tx, id, new Date().toISOString())) {
        await writeAudit(tx, actor, "invitation.revoked", found);
      }
      return presentInvitation((await findInvitationById(tx, id))!);
    });
  }

  /**
   * What the link is for, before a password is chosen: 400 unknown, 410 used, expired or
   * revoked, also when the administrator who made it is one no more (demoted, disabled or
   * deleted since: what they granted goes with their rights).
   */
  async check(token: string): Promise<InvitationView> {
    const found = await findInvitationByHash(this.db.reader, sha256(token));
    if (!found) throw unknownToken();
    const gone = goneError(found) ?? (await this.makerGone(found));
    if (gone) throw gone;
    return presentInvitation(found);
  }

  /** 410 when the invitation's maker was an administrator's account that no longer is an enabled administrator. */
  private async makerGone(i: Invitation): Promise<AppError | null> {
    // Made through the CLI: the operator's, who keeps the data directory.
    if (i.createdBy.startsWith("cli (")) return null;
    const maker = await findUserByEmail(this.db.reader, i.createdBy);
    if (maker?.isAdmin && !maker.disabledAt) return null;
    return new AppError(
      "invitation_revoked",
      "the administrator who made this invitation is no longer one; ask an administrator for a new one",
    );
  }

  /**
   * Makes the invited account with `password` and spends the invitation, in one
   * transaction: the guarded UPDATE of useInvitation decides between two tabs racing.
   */
  async accept(token: string, password: string): Promise<User> {
    const invitation = await this.check(token);
    const passwordHash = await this.settings.passwords.hash(password);
    return await this.db.atomically(async (tx) => {
      if (await findUserByEmail(tx, invitation.email)) {
        throw new AppError("conflict", `a user with email ${invitation.email} already exists; sign in instead`);
      }
      const now = new Date().toISOString();
      const user = await insertUser(
        tx,
        { id: Bun.randomUUIDv7(), email: invitation.email, passwordHash, tier: invitation.tier, createdAt: now },
        invitation.isAdmin,
      );
      if (!(await useInvitation(tx, invitation.id, user.id, now))) {
        throw goneError((await findInvitationById(tx, invitation.id))!) ?? unknownToken();
      }
      await writeAudit(tx, { id: user.id, label: user.email }, "invitation.accepted", user, {
        invitationId: invitation.id,
        invitedBy: invitation.createdBy,
      });
      return user;
    });
  }
}
