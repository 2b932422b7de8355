/**
 * The CSRF rule for cookie-authenticated requests that change state:
 * POST and PATCH must be JSON (multipart only for file uploads), and when the browser
 * sends an Origin header it must be the server's own. DELETE and PUT cannot be
 * sent cross-site without a CORS preflight, which ragd never grants, so they
 * need only the Origin check.
 */
import { AppError } from "./errors";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/** Throws csrf_rejected when a state-changing cookie request breaks the rule. */
export function checkCsrf(request: Request): void {
  const method = request.method.toUpperCase();
  if (SAFE.has(method)) return;
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== ownOrigin(request)) {
    throw new AppError("csrf_rejected", `requests from ${origin} are not accepted; use ragd's own origin`);
  }
  if (method === "POST" || method === "PATCH") {
    const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    const path = new URL(request.url).pathname;
    // Multipart is for file uploads and pipeline imports (docs/API.md, Export and import).
    const upload = type === "multipart/form-data" && (path.endsWith("/upload") || path === "/api/rag/pipelines/import");
    if (type !== "application/json" && !upload) {
      throw new AppError(
        "csrf_rejected",
        "a signed-in request that changes data must be sent with Content-Type: application/json",
      );
    }
  }
}

/** The origin the request was addressed to, as a browser would write it. */
function ownOrigin(request: Request): string {
  const url = new URL(request.url);
  const proto = request.headers.get("x-forwarded-proto") ?? url.protocol.replace(":", "");
  const host = request.headers.get("host") ?? url.host;
  return `${proto}://${host}`;
}

/** True when the request arrived over https (directly or behind a proxy that says so). */
export function isHttps(request: Request): boolean {
  return new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
}
