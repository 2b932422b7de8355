/**
 * The one error class and the one error handler. Every failure leaves ragd as
 * `{"error": {"code", "message", "details?"}}` with a stable code; the cause of an
 * unexpected error is logged with the request id and never sent.
 */
import { Elysia } from "elysia";
import { DomainError, type DomainErrorKind, missing } from "../core/errors";
import { FileError, type FileErrorCode } from "../files/errors";
import { QueueFullError, UpsertRefused } from "../ingest/errors";
import type { Logger } from "../log";
import { RetrievalError } from "../retrieval/errors";
import { DiskFullError, isOutOfSpace } from "../tools/disk";

export type ErrorCode =
  | "invalid_request"
  | "unauthenticated"
  | "invalid_api_key"
  | "account_disabled"
  | "api_key_not_allowed"
  | "insufficient_scope"
  | "tier_limit_reached"
  | "csrf_rejected"
  | "signup_closed"
  | "forbidden"
  | "not_found"
  | "misdirected_request"
  | "conflict"
  | "payload_too_large"
  | "uri_too_long"
  | "unsupported_media_type"
  | "request_header_fields_too_large"
  | "rate_limited"
  | "internal_error"
  | "not_implemented"
  | "embedding_unavailable"
  | "insufficient_storage"
  | "password_login_disabled"
  | "email_not_verified"
  | "sso_failed"
  | "sso_unavailable"
  | "invitation_used"
  | "invitation_expired"
  | "invitation_revoked";

const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  unauthenticated: 401,
  invalid_api_key: 401,
  account_disabled: 401,
  api_key_not_allowed: 403,
  insufficient_scope: 403,
  tier_limit_reached: 403,
  csrf_rejected: 403,
  signup_closed: 403,
  forbidden: 403,
  not_found: 404,
  misdirected_request: 421,
  conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  rate_limited: 429,
  request_header_fields_too_large: 431,
  internal_error: 500,
  not_implemented: 501,
  embedding_unavailable: 503,
  insufficient_storage: 507,
  password_login_disabled: 403,
  email_not_verified: 403,
  sso_failed: 400,
  sso_unavailable: 503,
  // Gone for good: the link cannot become valid again (docs/API.md, Invitations).
  invitation_used: 410,
  invitation_expired: 410,
  invitation_revoked: 410,
};

export interface FieldProblem {
  field: string;
  message: string;
}

/** A failure with a public code and a message a person can act on. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldProblem[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = STATUS[code];
  }
}

/**
 * 501 for what works on the data directory's files alone, asked of a server that keeps
 * them in object storage (docs/operations.md, Object storage).
 */
export const diskOnly = (what: string, instead = "") =>
  new AppError(
    "not_implemented",
    `${what} works only on files in the data directory, and this server keeps its files in object storage (RAGD_STORAGE_URL)${instead ? `; ${instead}` : ""}`,
  );

/** The public code of each kind of domain error (core/errors.ts). */
const DOMAIN_ERRORS: Record<DomainErrorKind, ErrorCode> = { not_found: "not_found", conflict: "conflict" };

/** A domain error of the layers below HTTP as the AppError it stands for: same code, message and details. */
export const fromDomain = (err: DomainError) => new AppError(DOMAIN_ERRORS[err.kind], err.message, err.problems);

/** The AppError a thrown value is or stands for (a domain error), or null for anything else. */
export const appErrorOf = (err: unknown): AppError | null =>
  err instanceof AppError ? err : err instanceof DomainError ? fromDomain(err) : null;

/** Shorthand for the common 404: existence of other users' things is never leaked. */
export const notFound = (what: string) => fromDomain(missing(what));

/**
 * Builds the JSON error response for an AppError. Its message is ragd's own; text from a
 * library is cleaned where it enters an AppError (see tools/scrub.ts).
 */
export function errorResponse(err: AppError, requestId?: string): Response {
  const body: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details) body.details = err.details;
  if (requestId && err.status >= 500) body.requestId = requestId;
  const headers: Record<string, string> = { "content-type": "application/json", ...err.headers };
  if (requestId) headers["x-request-id"] = requestId;
  return new Response(JSON.stringify({ error: body }), { status: err.status, headers });
}

interface ValidationLike {
  all?: { path?: string; message?: string; summary?: string; schema?: { error?: unknown } }[];
  type?: string;
}

/** Translates Elysia's schema errors into field problems a client can show. */
function validationDetails(error: unknown): FieldProblem[] {
  const all = (error as ValidationLike).all ?? [];
  const where = (error as ValidationLike).type ?? "body";
  const seen = new Set<string>();
  const out: FieldProblem[] = [];
  for (const e of all) {
    const field = (e.path ?? "").replace(/^\//, "").replace(/\//g, ".") || `(${where})`;
    // A schema's own `error` text (see Enum) says more than the generic summary.
    const own = typeof e.schema?.error === "string" ? e.schema.error : undefined;
    const message = own ?? e.summary ?? e.message ?? "is invalid";
    const k = `${field}:${message}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ field, message });
  }
  return out.slice(0, 20);
}

/** The status each code of the file store and multipart reader stands for. */
const FILE_ERRORS: Record<FileErrorCode, ErrorCode> = {
  too_large: "payload_too_large",
  part_too_large: "invalid_request",
  not_multipart: "unsupported_media_type",
  malformed: "invalid_request",
  missing_part: "invalid_request",
  empty: "invalid_request",
};

/**
 * Errors of the lower layers (which know nothing of HTTP) as the AppError they mean, if any.
 * A write that found the disk full (SQLite, a file, LanceDB) is 507 with how full it is.
 */
function fromLowerLayer(error: unknown, dataDir?: string): AppError | null {
  if (error instanceof DomainError) return fromDomain(error);
  if (error instanceof FileError) return new AppError(FILE_ERRORS[error.code], error.message);
  if (error instanceof DiskFullError) return new AppError("insufficient_storage", error.message);
  if (error instanceof QueueFullError)
    return new AppError("rate_limited", error.message, undefined, { "retry-after": String(error.retryAfterS) });
  if (error instanceof UpsertRefused)
    return new AppError("invalid_request", error.message, [{ field: error.field, message: error.reason }]);
  if (dataDir !== undefined && isOutOfSpace(error))
    return new AppError("insufficient_storage", new DiskFullError(dataDir).message);
  return null;
}

/** Maps any thrown value to an AppError; unknown errors become a logged 500. */
export function toAppError(
  code: string | number,
  error: unknown,
  log: Logger,
  requestId: string,
  dataDir?: string,
): AppError {
  if (error instanceof AppError) return error;
  // Elysia wraps what a parse hook throws in its own ParseError; the cause is ours.
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof AppError) return cause;
  if (error instanceof RetrievalError) return new AppError(error.code, error.message, error.field && [error.field]);
  const lower = fromLowerLayer(error, dataDir) ?? fromLowerLayer(cause, dataDir);
  if (lower) return lower;
  switch (code) {
    case "VALIDATION": {
      const where = (error as ValidationLike).type ?? "body";
      const details = validationDetails(error);
      const first = details[0];
      const msg = first ? `${first.field}: ${first.message}` : `the request ${where} is invalid`;
      return new AppError("invalid_request", msg, details);
    }
    case "PARSE":
      return new AppError("invalid_request", "the request body is not valid JSON");
    case "NOT_FOUND":
      return new AppError("not_found", "no such route");
    case "INVALID_COOKIE_SIGNATURE":
      return new AppError("unauthenticated", "sign in first");
  }
  log.error("unexpected error", {
    requestId,
    error: error instanceof Error ? error : String(error),
    stack: (error as Error)?.stack,
  });
  return new AppError("internal_error", `something went wrong on our side (request ${requestId})`);
}

/** The status recorded for a request whose client hung up before its answer (nginx's). */
export const CLIENT_CLOSED = 499;

/** The status of error responses, for the request log and metrics. */
export const errorStatus = new WeakMap<Request, number>();

/** The global error handler plugin; `dataDir` is where a full disk is named, and the one path shown. */
export function errorHandler(log: Logger, dataDir?: string) {
  return new Elysia({ name: "errors" }).onError({ as: "global" }, ({ code, error, request }) => {
    const requestId = requestIdOf(request);
    // The client hung up (mid-upload, say): nothing failed on our side and nobody reads
    // this answer, so it is no 500 and no error log; the request line says 499.
    if (request.signal.aborted) {
      errorStatus.set(request, CLIENT_CLOSED);
      return new Response(null, { status: CLIENT_CLOSED });
    }
    const appError = toAppError(code, error, log, requestId, dataDir);
    errorStatus.set(request, appError.status);
    return errorResponse(appError, requestId);
  });
}

const ids = new WeakMap<Request, string>();

/** The id given to a request when it arrived (see http/observe.ts). */
export function requestIdOf(request: Request): string {
  let id = ids.get(request);
  if (!id) {
    id = crypto.randomUUID();
    ids.set(request, id);
  }
  return id;
}
