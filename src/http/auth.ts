/**
 * Session authentication for the dashboard-facing API. A route opts in with
 * `{ session: true }` and receives `user`. Checks run before the body is
 * validated (a body that is not JSON at all is still reported first), in this order: a `rag_` API key anywhere in the credentials → 403
 * api_key_not_allowed; no live session → 401; the CSRF rule → 403.
 */
import { Elysia } from "elysia";
import type { User } from "../db/schema";
import { SESSION_COOKIE, sessionCookie } from "../features/auth/cookie";
import type { AuthService } from "../features/auth/service";
import { checkCsrf } from "./csrf";
import { AppError } from "./errors";

/** True when the request carries a pipeline API key in any usual place. */
function carriesApiKey(request: Request, sessionCookie: string | undefined): boolean {
  const auth = request.headers.get("authorization") ?? "";
  const apiKeyHeader = request.headers.get("x-api-key") ?? "";
  return /\brag_/.test(auth) || apiKeyHeader.startsWith("rag_") || (sessionCookie ?? "").startsWith("rag_");
}

/** Every value of cookie `name` in the Cookie header, decoded; one that does not decode is left out. */
export function readCookies(request: Request, name: string): string[] {
  const header = request.headers.get("cookie");
  if (!header) return [];
  const values: string[] = [];
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0 || part.slice(0, eq).trim() !== name) continue;
    try {
      values.push(decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      // Not ours: ragd's cookies are URL-safe. A page elsewhere on this host may have set it.
    }
  }
  return values;
}

/** Cookie `name`; undefined when the request carries none, or several that differ. */
export function readCookie(request: Request, name: string): string | undefined {
  const values = new Set(readCookies(request, name));
  return values.size === 1 ? [...values][0] : undefined;
}

/** The signed-in user of a request (and whether the session was renewed), or the reason there is none. */
export async function authenticateSession(
  auth: AuthService,
  request: Request,
): Promise<{ user: User; renewed: boolean; token: string }> {
  const tokens = new Set(readCookies(request, SESSION_COOKIE));
  const token = tokens.size === 1 ? [...tokens][0] : undefined;
  // Browsers keep cookies apart by host, not by port: another site on this host may have set
  // one for a path under /api, sent first. Which is the user's cannot be told: none is taken.
  if (tokens.size > 1)
    throw new AppError(
      "unauthenticated",
      `more than one ${SESSION_COOKIE} cookie arrived (another site on this host may have set one): clear this site's cookies and sign in again`,
    );
  if (carriesApiKey(request, token)) {
    throw new AppError(
      "api_key_not_allowed",
      "API keys only work on POST /api/rag/query and /api/rag/documents; sign in to manage pipelines",
    );
  }
  const found = token ? await auth.userForToken(token) : undefined;
  if (!found || !token) throw new AppError("unauthenticated", "sign in first (no valid session cookie)");
  checkCsrf(request);
  return { ...found, token };
}

/** The `session` macro: resolves the signed-in user or rejects the request. */
export function sessionAuth(auth: AuthService) {
  const seen = new WeakMap<Request, Awaited<ReturnType<typeof authenticateSession>>>();
  return new Elysia({ name: "session-auth" }).macro({
    session: {
      async transform({ request }) {
        seen.set(request, await authenticateSession(auth, request));
      },
      async resolve({ request, set }) {
        const s = seen.get(request) ?? (await authenticateSession(auth, request));
        // A sliding session: the browser's copy of the cookie slides with the server's.
        if (s.renewed) set.headers["set-cookie"] = sessionCookie(s.token, request);
        return { user: s.user };
      },
    },
  });
}
