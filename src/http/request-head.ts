/**
 * Limits on the request line and headers (docs/API.md, Limits). Bun refuses a head over
 * its own cap with an empty 431 before ragd sees it; the binary raises that cap to
 * SERVER_HEAD_CAP_BYTES (scripts/build.ts), so anything between ragd's limits and that cap
 * gets a proper error body here instead.
 */
import { Elysia } from "elysia";
import { AppError } from "./errors";

/** Path plus query string. */
export const MAX_URL_BYTES = 16 * 1024;
/** All header names and values together. */
export const MAX_HEADER_BYTES = 64 * 1024;
/** Bun's --max-http-header-size in the built binary; above it the answer is an empty 431. */
export const SERVER_HEAD_CAP_BYTES = 1024 * 1024;

/** The error for a request whose URL or headers are over the limit; null when within. */
export function headProblem(request: Request): AppError | null {
  const url = request.url;
  // Everything after the origin: "/path?query".
  const pathAndQuery = url.length - url.indexOf("/", url.indexOf("//") + 2);
  if (pathAndQuery > MAX_URL_BYTES) {
    return new AppError("uri_too_long", `the URL is longer than ${MAX_URL_BYTES} bytes (path and query string)`);
  }
  let size = 0;
  for (const [name, value] of request.headers) size += name.length + value.length + 4;
  if (size > MAX_HEADER_BYTES) {
    return new AppError(
      "request_header_fields_too_large",
      `the request headers are larger than ${MAX_HEADER_BYTES} bytes`,
    );
  }
  return null;
}

/** Refuses an oversized request head before anything else reads it. */
export function requestHead() {
  return new Elysia({ name: "request-head" }).onRequest(({ request }) => {
    const problem = headProblem(request);
    if (problem) throw problem;
  });
}
