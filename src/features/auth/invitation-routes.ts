/**
 * The invited person's side of an invitation (docs/API.md, Invitations): see what the
 * link is for, then choose a password and be signed in. No session is needed, and
 * sign-up being closed does not matter: the administrator already said yes. The token
 * travels in the body, never in the path, so request logs do not hold it.
 */
import { Elysia, t } from "elysia";
import { checkCsrf } from "../../http/csrf";
import { ErrorBody } from "../../http/schemas";
import type { InvitationService } from "../admin/invitations";
import { sessionCookie } from "./cookie";
import { UserEnvelope } from "./schemas";
import { type AuthService, publicUser } from "./service";

const Token = t.String({ minLength: 1, maxLength: 200, description: "The token from the invitation's link." });
const InvitationCheck = t.Object({ token: Token });
const InvitationAccept = t.Object({ token: Token, password: t.String({ minLength: 8, maxLength: 1024 }) });
const InvitationInfo = t.Object({
  email: t.String(),
  tier: t.String(),
  isAdmin: t.Boolean(),
  expiresAt: t.String({ format: "date-time" }),
});
const gone = { 400: ErrorBody, 403: ErrorBody, 409: ErrorBody, 410: ErrorBody };

export function invitationRoutes(auth: AuthService, invitations: InvitationService) {
  return new Elysia({ prefix: "/api/auth/invitation", tags: ["Accounts"] })
    .post(
      "/check",
      async ({ body, request }) => {
        checkCsrf(request);
        const { email, tier, isAdmin, expiresAt } = await invitations.check(body.token);
        return { email, tier, isAdmin, expiresAt };
      },
      {
        parse: "json",
        body: InvitationCheck,
        response: { 200: InvitationInfo, ...gone },
        detail: { summary: "What an invitation is for (410 when used, expired or revoked)", security: [] },
      },
    )
    .post(
      "/accept",
      async ({ body, request, set }) => {
        checkCsrf(request);
        // With passwords off, a password set here would open a door the operator closed.
        auth.checkPasswordsOn();
        const user = await invitations.accept(body.token, body.password);
        set.status = 201;
        set.headers["set-cookie"] = sessionCookie(await auth.startSession(user.id), request);
        return { user: publicUser(user) };
      },
      {
        parse: "json",
        body: InvitationAccept,
        response: { 201: UserEnvelope, ...gone },
        detail: { summary: "Choose a password with an invitation; creates the account and signs in", security: [] },
      },
    );
}
