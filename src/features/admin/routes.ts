/**
 * Administration routes under /api/admin (docs/API.md, Administration): session
 * only, administrators only (403 forbidden for anyone else), CSRF rules as for every
 * session route. Users: list, one, change tier or administration, reset password,
 * disable, enable, delete. Audit log: JSON pages or JSON lines.
 */
import { Elysia, t } from "elysia";
import { authenticateSession } from "../../http/auth";
import { Deleted, ErrorBody } from "../../http/schemas";
import { unknownFields } from "../../http/unknown-fields";
import { sessionCookie } from "../auth/cookie";
import { invitationRoutes } from "../auth/invitation-routes";
import type { AuthService } from "../auth/service";
import {
  AdminUserEnvelope,
  AdminUserList,
  AdminUserPatch,
  AuditPage,
  AuditQuery,
  DeleteUserQuery,
  InvitationBody,
  InvitationCreated,
  InvitationEnvelope,
  InvitationList,
  NewUserBody,
  PasswordReset,
} from "./schemas";
import { type Actor, AdminService } from "./service";

const Id = t.Object({ id: t.String() });
const errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };

/**
 * The `admin` macro: the session checks of every session route (docs/API.md,
 * Authentication), then 403 forbidden for a user who is not an administrator, all
 * before the body is validated, so a non-administrator learns nothing from a 400.
 * Resolves `actor`, the administrator acting.
 */
function adminAuth(auth: AuthService) {
  const seen = new WeakMap<Request, Awaited<ReturnType<typeof authenticateSession>>>();
  const check = async (request: Request) => {
    const s = seen.get(request) ?? (await authenticateSession(auth, request));
    seen.set(request, s);
    return { s, actor: AdminService.actorOf(s.user) };
  };
  return new Elysia({ name: "admin-auth" }).macro({
    admin: {
      async transform({ request }) {
        await check(request);
      },
      async resolve({ request, set }) {
        const { s, actor } = await check(request);
        if (s.renewed) set.headers["set-cookie"] = sessionCookie(s.token, request);
        return { actor };
      },
    },
  });
}

/**
 * The administration routes, and beside them the invited person's side of an
 * invitation (/api/auth/invitation, no session): one feature, two doors.
 */
export function adminRoutes(auth: AuthService, admin: AdminService) {
  return new Elysia().use(invitationRoutes(auth, admin.invitations)).use(administratorRoutes(auth, admin));
}

function administratorRoutes(auth: AuthService, admin: AdminService) {
  return new Elysia({ prefix: "/api/admin", tags: ["Administration"] })
    .use(adminAuth(auth))
    .use(unknownFields)
    .get("/users", async () => ({ data: await admin.listUsers() }), {
      admin: true,
      response: { 200: AdminUserList, ...errors },
      detail: { summary: "Every user with tier, counts and last sign-in" },
    })
    .post("/users", ({ actor, body, set }) => createUserOrInvitation(admin, actor, body, set), {
      admin: true,
      rejectUnknownFields: NewUserBody,
      parse: "json",
      body: NewUserBody,
      response: { 201: t.Union([AdminUserEnvelope, InvitationCreated]), 400: ErrorBody, ...errors },
      detail: { summary: "Create a user with a password, or without one an invitation (its link shown once)" },
    })
    .get("/invitations", async () => ({ data: await admin.invitations.list() }), {
      admin: true,
      response: { 200: InvitationList, ...errors },
      detail: { summary: "Invitations, newest first, with their status" },
    })
    .post(
      "/invitations",
      async ({ actor, body, set }) => {
        set.status = 201;
        return await admin.invitations.create(actor, body);
      },
      {
        admin: true,
        rejectUnknownFields: InvitationBody,
        parse: "json",
        body: InvitationBody,
        response: { 201: InvitationCreated, 400: ErrorBody, ...errors },
        detail: { summary: "Invite a person: a one-time link, valid for expiresIn hours, shown once" },
      },
    )
    .post(
      "/invitations/:id/revoke",
      async ({ actor, params }) => ({ invitation: await admin.invitations.revoke(actor, params.id) }),
      {
        admin: true,
        params: Id,
        response: { 200: InvitationEnvelope, ...errors },
        detail: { summary: "Revoke an unused invitation: its link answers 410 invitation_revoked" },
      },
    )
    .get("/users/:id", async ({ params }) => ({ user: await admin.getUser(params.id) }), {
      admin: true,
      params: Id,
      response: { 200: AdminUserEnvelope, ...errors },
      detail: { summary: "One user" },
    })
    .patch(
      "/users/:id",
      async ({ actor, params, body }) => ({ user: await patchUser(admin, actor, params.id, body) }),
      {
        admin: true,
        rejectUnknownFields: AdminUserPatch,
        params: Id,
        parse: "json",
        body: AdminUserPatch,
        response: { 200: AdminUserEnvelope, 400: ErrorBody, ...errors },
        detail: { summary: "Change a user's tier or administration (409 for the last administrator)" },
      },
    )
    .post("/users/:id/password-reset", ({ actor, params }) => admin.resetPassword(actor, params.id), {
      admin: true,
      params: Id,
      response: { 200: PasswordReset, ...errors },
      detail: { summary: "Set a temporary password, shown once; ends the user's sessions" },
    })
    .post(
      "/users/:id/disable",
      async ({ actor, params }) => ({ user: await admin.setDisabled(actor, params.id, true) }),
      {
        admin: true,
        params: Id,
        response: { 200: AdminUserEnvelope, ...errors },
        detail: { summary: "Disable an account: sessions end, keys answer 401 account_disabled" },
      },
    )
    .post(
      "/users/:id/enable",
      async ({ actor, params }) => ({ user: await admin.setDisabled(actor, params.id, false) }),
      {
        admin: true,
        params: Id,
        response: { 200: AdminUserEnvelope, ...errors },
        detail: { summary: "Enable a disabled account again" },
      },
    )
    .delete("/users/:id", ({ actor, params, query }) => admin.deleteUser(actor, params.id, query.confirm), {
      admin: true,
      params: Id,
      query: DeleteUserQuery,
      response: { 200: Deleted, 400: ErrorBody, ...errors },
      detail: { summary: "Delete a user and everything they own; ?confirm=<their email>" },
    })
    .get("/audit", ({ query }) => auditAnswer(admin, query), {
      admin: true,
      query: AuditQuery,
      response: { 200: t.Union([AuditPage, t.String()]), 400: ErrorBody, ...errors },
      detail: { summary: "The audit log: newest first as JSON, or ?format=jsonl (oldest first, JSON lines)" },
    });
}

/** POST /users: with a password the account itself, without one an invitation to it. */
async function createUserOrInvitation(
  admin: AdminService,
  by: Actor,
  body: typeof NewUserBody.static,
  set: { status?: number | string },
) {
  set.status = 201;
  const { password, expiresIn, ...account } = body;
  if (password === undefined) return await admin.invitations.create(by, { ...account, expiresIn });
  return { user: await admin.createAccount(by, { ...account, password }) };
}

/** Applies a PATCH: tier, then administration, each audited on its own. */
async function patchUser(admin: AdminService, by: Actor, id: string, body: typeof AdminUserPatch.static) {
  let out = await admin.getUser(id);
  if (body.tier !== undefined) out = await admin.setTier(by, id, body.tier);
  if (body.isAdmin !== undefined) out = await admin.setAdmin(by, id, body.isAdmin);
  return out;
}

function auditAnswer(admin: AdminService, q: typeof AuditQuery.static) {
  if (q.format !== "jsonl") return admin.audit.page(q.limit ?? 100, q.before);
  const lines = admin.audit.lines(q.after ?? 0);
  const encoder = new TextEncoder();
  // Pulled a line at a time: a long log is never held in memory whole.
  const body = new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      const next = await lines.next();
      if (next.done) ctrl.close();
      else ctrl.enqueue(encoder.encode(next.value));
    },
  });
  return new Response(body, { headers: { "content-type": "application/x-ndjson; charset=utf-8" } });
}
