/**
 * Account routes: POST /api/auth/signup, POST /api/auth/login,
 * POST /api/auth/logout, GET /api/auth/me.
 */
import { Elysia } from "elysia";
import { readCookie, sessionAuth } from "../../http/auth";
import type { ClientAddresses } from "../../http/client-address";
import { checkCsrf } from "../../http/csrf";
import { ErrorBody } from "../../http/schemas";
import { Credentials, PasswordChange, UserEnvelope } from "./schemas";
import { SESSION_COOKIE, sessionCookie } from "./cookie";
import { publicUser, type AuthService } from "./service";

export function authRoutes(auth: AuthService, clients: ClientAddresses) {
  return new Elysia({ prefix: "/api/auth", tags: ["Accounts"] })
    .use(sessionAuth(auth))
    .post(
      "/signup",
      async ({ body, request, set }) => {
        checkCsrf(request);
        const { user, token } = await auth.signup(body.email, body.password);
        set.status = 201;
        set.headers["set-cookie"] = sessionCookie(token, request);
        return { user: publicUser(user) };
      },
      {
        parse: "json",

        body: Credentials,
        response: { 201: UserEnvelope, 400: ErrorBody, 403: ErrorBody, 409: ErrorBody },
        detail: { summary: "Create an account and sign in", security: [] },
      },
    )
    .post(
      "/login",
      async ({ body, request, set }) => {
        checkCsrf(request);
        const { user, token } = await auth.login(body.email, body.password, clients.of(request));
        set.headers["set-cookie"] = sessionCookie(token, request);
        return { user: publicUser(user) };
      },
      {
        parse: "json",

        body: Credentials,
        response: { 200: UserEnvelope, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
        detail: { summary: "Sign in; sets the ragd_session cookie", security: [] },
      },
    )
    .post(
      "/logout",
      async ({ request, set }) => {
        checkCsrf(request);
        await auth.logout(readCookie(request, SESSION_COOKIE));
        set.status = 204;
        set.headers["set-cookie"] = sessionCookie("", request, 0);
      },
      { detail: { summary: "Sign out; ends the session on the server (needs no valid session)", security: [] } },
    )
    .get("/me", ({ user }) => ({ user: publicUser(user) }), {
      session: true,
      response: { 200: UserEnvelope, 401: ErrorBody, 403: ErrorBody },
      detail: { summary: "The signed-in user" },
    })
    .post(
      "/password",
      async ({ user, body, request }) => {
        const token = readCookie(request, SESSION_COOKIE)!;
        const changed = await auth.changePassword(
          user,
          token,
          body.currentPassword,
          body.newPassword,
          clients.of(request),
        );
        return { user: publicUser(changed) };
      },
      {
        session: true,
        parse: "json",
        body: PasswordChange,
        response: { 200: UserEnvelope, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
        detail: { summary: "Change your password; signs out your other sessions" },
      },
    );
}
