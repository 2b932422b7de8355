/**
 * Sign-in methods and single sign-on: GET /api/auth/methods, GET /api/auth/oidc/start,
 * GET /api/auth/oidc/callback (docs/configuration.md, Single sign-on). Start and callback are browser
 * navigations, so they answer with redirects and, on failure, a short HTML page.
 */
import { Elysia, t } from "elysia";
import type { Config } from "../../config";
import { readCookie } from "../../http/auth";
import { isHttps } from "../../http/csrf";
import { AppError } from "../../http/errors";
import type { Logger } from "../../log";
import { sessionCookie } from "./cookie";
import { OIDC_COOKIE, PENDING_TTL_S, type SingleSignOn } from "./oidc";
import type { AuthService } from "./service";

const CALLBACK_PATH = "/api/auth/oidc/callback";

const Methods = t.Object({
  password: t.Boolean({ description: "Sign-in with email and password is on." }),
  signup: t.Boolean({ description: "New accounts may be created (with a password, or by a first single sign-on)." }),
  passwordSignup: t.Boolean({
    description: "A new account may be created with a password (not while single sign-on is on).",
  }),
  oidc: t.Nullable(t.Object({ name: t.String(), startUrl: t.String() })),
  firstAccount: t.Boolean({
    description:
      "No account exists yet: the first one created (by sign-up or `ragd user create`) is the administrator.",
  }),
});

export interface SsoDeps {
  auth: AuthService;
  sso: SingleSignOn | null;
  config: Pick<Config, "passwordLogin" | "signup" | "oidcName">;
  baseUrl: () => string;
  log: Logger;
}

export function ssoRoutes(d: SsoDeps) {
  const redirectUri = () => d.baseUrl() + CALLBACK_PATH;
  return new Elysia({ prefix: "/api/auth", tags: ["Accounts"] })
    .get("/methods", async () => ({ ...methods(d), firstAccount: await d.auth.awaitsFirstAccount() }), {
      response: { 200: Methods },
      detail: { summary: "How to sign in on this server (no session needed)", security: [] },
    })
    .get("/oidc/start", ({ request }) => browserPage(request, () => start(d, request, redirectUri())), {
      detail: { summary: "Begin single sign-on: redirects to the identity provider", security: [] },
    })
    .get("/oidc/callback", ({ request }) => browserPage(request, () => finish(d, request, redirectUri())), {
      detail: { summary: "Where the identity provider returns; sets the session cookie", security: [] },
    });
}

function methods(d: SsoDeps) {
  return {
    password: d.config.passwordLogin === "on",
    signup: d.config.signup === "open",
    passwordSignup: d.config.signup === "open" && d.config.passwordLogin === "on" && d.sso === null,
    oidc: d.sso ? { name: d.config.oidcName, startUrl: "/api/auth/oidc/start" } : null,
  };
}

async function start(d: SsoDeps, request: Request, redirectUri: string): Promise<Response> {
  if (!d.sso) throw new AppError("not_found", "single sign-on is not configured on this server");
  const { url, cookie } = await d.sso.start(redirectUri);
  const headers = new Headers({ location: url, "cache-control": "no-store" });
  headers.append("set-cookie", oidcCookie(cookie, request, PENDING_TTL_S));
  return new Response(null, { status: 303, headers });
}

async function finish(d: SsoDeps, request: Request, redirectUri: string): Promise<Response> {
  if (!d.sso) throw new AppError("not_found", "single sign-on is not configured on this server");
  const query = new URL(request.url).searchParams;
  const { email } = await d.sso.finish(redirectUri, query, readCookie(request, OIDC_COOKIE));
  const { user, token, created } = await d.auth.signInVerified(email);
  d.log.info("signed in with single sign-on", { userId: user.id, created });
  const headers = new Headers({ location: "/", "cache-control": "no-store" });
  headers.append("set-cookie", sessionCookie(token, request));
  headers.append("set-cookie", oidcCookie("", request, 0));
  return new Response(null, { status: 303, headers });
}

/** The pending sign-in's cookie: only the callback reads it; Lax so the provider's redirect carries it. */
function oidcCookie(value: string, request: Request, maxAge: number): string {
  const secure = isHttps(request) ? "; Secure" : "";
  return `${OIDC_COOKIE}=${value}; Path=/api/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
}

/**
 * Runs a browser-facing step. A failure is a small HTML page with the error's status,
 * message and code, and a way back to the sign-in screen.
 */
async function browserPage(request: Request, step: () => Promise<Response>): Promise<Response> {
  try {
    return await step();
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const page = errorPage(err);
    // The pending sign-in is spent either way: the next attempt starts afresh.
    page.headers.append("set-cookie", oidcCookie("", request, 0));
    return page;
  }
}

function errorPage(err: AppError): Response {
  const message = err.message.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in failed · ragd</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem">
<h1>Sign-in failed</h1><p>${message}</p><p><code>${err.code}</code></p><p><a href="/#/signin">Back to sign-in</a></p>
</body></html>`;
  return new Response(html, {
    status: err.status,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
  });
}
