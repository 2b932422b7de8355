/**
 * The one place the dashboard talks HTTP. Every failure becomes an ApiError that
 * carries the API's own `error.code` and `error.message`, so a screen can show
 * exactly what ragd said next to what caused it.
 */
import { t } from "../i18n";

export interface FieldProblem {
  field: string;
  message: string;
}

/** A failed call: the API's error body, or a stand-in when ragd did not answer. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldProblem[] = [],
  ) {
    super(message);
  }
}

/** The message for one form field, if the API named it in `details`. */
export function fieldError(err: unknown, field: string): string | undefined {
  if (!(err instanceof ApiError)) return undefined;
  return err.details.find((d) => d.field === field)?.message;
}

let onUnauthenticated: () => void = () => {};

/** Called when a session endpoint answers 401: the session ended elsewhere or expired. */
export function setUnauthenticatedHandler(fn: () => void): void {
  onUnauthenticated = fn;
}

/** Turns a non-2xx response into an ApiError, reading the body if it is ragd's. */
export async function errorFrom(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => "");
  return errorFromBody(res.status, text);
}

/** Parses ragd's error body; falls back to the HTTP status text. */
export function errorFromBody(status: number, text: string): ApiError {
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string; details?: FieldProblem[] } };
    if (body.error?.message) {
      return new ApiError(status, body.error.code ?? "error", body.error.message, body.error.details ?? []);
    }
  } catch {
    // not JSON: fall through
  }
  const answer = t("api.answered", { status: String(status) });
  return new ApiError(status, "http_error", text ? `${answer}: ${text.slice(0, 200)}` : answer);
}

export const networkError = () => new ApiError(0, "network_error", t("api.noAnswer"));

interface RequestOptions {
  body?: unknown;
  /** A `rag_` API key: sent as a Bearer token, and a 401 then does not end the session. */
  apiKey?: string;
}

/** How many times a busy answer is waited out before it is shown. */
const BUSY_TRIES = 30;
/** The longest Retry-After waited out: a longer one (sign-in limits, a full queue) is shown at once. */
const BUSY_WAIT_MAX_S = 5;

/**
 * How long to wait before asking again, in milliseconds, for a 429 whose Retry-After is short:
 * the server takes writes at the pace it gets them done while queries wait (docs/API.md, Errors).
 */
export function busyWaitMs(status: number, retryAfter: string | null): number | null {
  const s = Number(retryAfter);
  return status === 429 && retryAfter !== null && s >= 0 && s <= BUSY_WAIT_MAX_S ? s * 1000 : null;
}

/** Calls the API and returns the parsed JSON (undefined for 204); a busy answer is asked again. */
export function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  return askedAgainWhileBusy(() => requestOnce<T>(method, path, opts));
}

/** Runs `once` again while it fails with a BusyError, up to BUSY_TRIES times; then its ApiError is thrown. */
export async function askedAgainWhileBusy<T>(once: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await once();
    } catch (err) {
      const wait = err instanceof BusyError && tries < BUSY_TRIES ? err.waitMs : null;
      if (wait === null) throw err instanceof BusyError ? err.error : err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** A busy answer, to be asked again after `waitMs`; `error` is what the caller sees if it is not. */
export class BusyError extends Error {
  constructor(
    readonly waitMs: number,
    readonly error: ApiError,
  ) {
    super(error.message);
  }
}

async function requestOnce<T>(method: string, path: string, opts: RequestOptions): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  // POST and PATCH always carry JSON: the session CSRF rule asks for that Content-Type.
  if (opts.body !== undefined || method === "POST" || method === "PATCH") headers["content-type"] = "application/json";
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: opts.body !== undefined ? JSON.stringify(opts.body) : method === "POST" ? "{}" : undefined,
      credentials: opts.apiKey ? "omit" : "same-origin",
    });
  } catch {
    throw networkError();
  }
  if (!res.ok) {
    const err = await errorFrom(res);
    const wait = busyWaitMs(res.status, res.headers.get("retry-after"));
    if (wait !== null) throw new BusyError(wait, err);
    if (res.status === 401 && !opts.apiKey && !path.startsWith("/api/auth/")) onUnauthenticated();
    throw err;
  }
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** Builds a query string from defined, non-empty values. */
export function qs(params: Record<string, string | number | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : "";
}
