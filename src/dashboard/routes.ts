/**
 * Serves the dashboard: GET / (the page from page.ts), /assets/app.js and /assets/app.css.
 * The files are imported as text, so `bun build --compile` embeds them in the
 * binary; run scripts/build-dashboard.ts first (npm start and npm run build do).
 * Hidden from the OpenAPI document: they are not part of the API.
 */
import { Elysia } from "elysia";
import css from "./dist/app.css" with { type: "text" };
import js from "./dist/app.js" with { type: "text" };
import { indexHtml } from "./page";

/**
 * The page loads nothing from anywhere but ragd itself (the favicon is a data: URL), and no
 * other page may frame it. On
 * object storage, a file source's uploadUrl is a presigned PUT to the store, so the page
 * may also connect to the store's origin (`storeOrigin`), and to nothing else.
 */
export function securityHeaders(storeOrigin: string | null): Record<string, string> {
  const connect = storeOrigin ? `; connect-src 'self' ${storeOrigin}` : "";
  return {
    // No page may frame the dashboard (a signed-in page in another's frame invites clickjacking).
    "content-security-policy": `default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'${connect}`,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
  };
}

const hidden = { detail: { hide: true } };
const version = Bun.hash(js + css).toString(36);

/** The dashboard's routes, as one Elysia instance for app.ts to `.use()`. */
export function dashboardRoutes(storeOrigin: string | null = null) {
  const headers = securityHeaders(storeOrigin);
  /** A handler answering with fixed text; assets carry a version in their URL, so they may be cached. */
  const serve = (body: string, type: string, cache: string) => () =>
    new Response(body, { headers: { "content-type": type, "cache-control": cache, ...headers } });
  return new Elysia({ name: "dashboard" })
    .get("/", serve(indexHtml(version), "text/html; charset=utf-8", "no-cache"), hidden)
    .get("/assets/app.js", serve(js, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable"), hidden)
    .get("/assets/app.css", serve(css, "text/css; charset=utf-8", "public, max-age=31536000, immutable"), hidden);
}
