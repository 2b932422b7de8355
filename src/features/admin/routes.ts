/**
 * Administration routes under /api/admin (docs/API.md, Administration): session
 * only, administrators only (403 forbidden for anyone else), CSRF rules as for every
 * session route. Users: list, one, change tier or administration, reset password,
 * disable, enable, delete. Audit log: JSON pages or JSON lines.
 */
import { Elysia, t } from "elysia";
import { sessionAuth } from "../../http/auth";
import { Deleted, ErrorBody } from "../../http/models";
import { unknownFields } from "../../http/unknown-fields";
import type { AuthService } from "../auth/service";
import {
  AdminUserEnvelope,
  AdminUserList,
  AdminUserPatch,
  AuditPage,
  AuditQuery,
  DeleteUserQuery,
  PasswordReset,
} from "./model";
import { AdminService } from "./service";

const Id = t.Object({ id: t.String() });
const errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };
const actor = AdminService.actorOf;

export function adminRoutes(auth: AuthService, admin: AdminService) {
  return new Elysia({ prefix: "/api/admin", tags: ["Administration"] })
    .use(sessionAuth(auth))
    .use(unknownFields)
    .get(
      "/users",
      ({ user }) => {
        actor(user);
        return { data: admin.listUsers() };
      },
      {
        session: true,
        response: { 200: AdminUserList, ...errors },
        detail: { summary: "Every user with tier, counts and last sign-in" },
      },
    )
    .get(
      "/users/:id",
      ({ user, params }) => {
        actor(user);
        return { user: admin.getUser(params.id) };
      },
      {
        session: true,
        params: Id,
        response: { 200: AdminUserEnvelope, ...errors },
        detail: { summary: "One user" },
      },
    )
    .patch("/users/:id", ({ user, params, body }) => ({ user: patchUser(admin, user, params.id, body) }), {
      session: true,
      rejectUnknownFields: AdminUserPatch,
      params: Id,
      parse: "json",
      body: AdminUserPatch,
      response: { 200: AdminUserEnvelope, 400: ErrorBody, ...errors },
      detail: { summary: "Change a user's tier or administration (409 for the last administrator)" },
    })
    .post("/users/:id/password-reset", ({ user, params }) => admin.resetPassword(actor(user), params.id), {
      session: true,
      params: Id,
      response: { 200: PasswordReset, ...errors },
      detail: { summary: "Set a temporary password, shown once; ends the user's sessions" },
    })
    .post("/users/:id/disable", ({ user, params }) => ({ user: admin.setDisabled(actor(user), params.id, true) }), {
      session: true,
      params: Id,
      response: { 200: AdminUserEnvelope, ...errors },
      detail: { summary: "Disable an account: sessions end, keys answer 401 account_disabled" },
    })
    .post("/users/:id/enable", ({ user, params }) => ({ user: admin.setDisabled(actor(user), params.id, false) }), {
      session: true,
      params: Id,
      response: { 200: AdminUserEnvelope, ...errors },
      detail: { summary: "Enable a disabled account again" },
    })
    .delete("/users/:id", ({ user, params, query }) => admin.deleteUser(actor(user), params.id, query.confirm), {
      session: true,
      params: Id,
      query: DeleteUserQuery,
      response: { 200: Deleted, 400: ErrorBody, ...errors },
      detail: { summary: "Delete a user and everything they own; ?confirm=<their email>" },
    })
    .get(
      "/audit",
      ({ user, query }) => {
        actor(user);
        return auditAnswer(admin, query);
      },
      {
        session: true,
        query: AuditQuery,
        response: { 200: t.Union([AuditPage, t.String()]), 400: ErrorBody, ...errors },
        detail: { summary: "The audit log: newest first as JSON, or ?format=jsonl (oldest first, JSON lines)" },
      },
    );
}

/** Applies a PATCH: tier, then administration, each audited on its own. */
function patchUser(
  admin: AdminService,
  user: Parameters<typeof actor>[0],
  id: string,
  body: typeof AdminUserPatch.static,
) {
  const by = actor(user);
  let out = admin.getUser(id);
  if (body.tier !== undefined) out = admin.setTier(by, id, body.tier);
  if (body.isAdmin !== undefined) out = admin.setAdmin(by, id, body.isAdmin);
  return out;
}

function auditAnswer(admin: AdminService, q: typeof AuditQuery.static) {
  if (q.format !== "jsonl") return admin.audit.page(q.limit ?? 100, q.before);
  const lines = admin.audit.lines(q.after ?? 0);
  const encoder = new TextEncoder();
  // Pulled a line at a time: a long log is never held in memory whole.
  const body = new ReadableStream<Uint8Array>({
    pull(ctrl) {
      const next = lines.next();
      if (next.done) ctrl.close();
      else ctrl.enqueue(encoder.encode(next.value));
    },
  });
  return new Response(body, { headers: { "content-type": "application/x-ndjson; charset=utf-8" } });
}
