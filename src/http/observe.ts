/**
 * Per-request bookkeeping: a request id (sent back as X-Request-Id), one JSON log
 * line per request and the metrics. No header, body or query string is logged,
 * so no password, key, cookie or token can reach the log.
 */
import { Elysia } from "elysia";
import type { Logger } from "../log";
import { errorStatus, requestIdOf } from "./errors";
import type { Metrics } from "./metrics";

export function observe(log: Logger, metrics: Metrics) {
  const started = new WeakMap<Request, number>();
  return new Elysia({ name: "observe" })
    .onRequest(({ request, set }) => {
      started.set(request, performance.now());
      set.headers["x-request-id"] = requestIdOf(request);
    })
    .onAfterResponse({ as: "global" }, (ctx) => {
      const { request, route, set } = ctx;
      const t0 = started.get(request) ?? performance.now();
      const ms = performance.now() - t0;
      const status = errorStatus.get(request) ?? statusOf(ctx as unknown as { responseValue?: unknown }, set.status);
      const path = route || "(unmatched)";
      metrics.observe(request.method, path, status, ms / 1000);
      log.info("request", {
        requestId: requestIdOf(request),
        method: request.method,
        route: path,
        status,
        ms: Math.round(ms * 10) / 10,
      });
    });
}

/** The status actually sent: a Response's own status wins over `set.status`. */
function statusOf(ctx: { responseValue?: unknown }, setStatus: unknown): number {
  const r = ctx.responseValue;
  if (r instanceof Response) return r.status;
  if (typeof setStatus === "number") return setStatus;
  return 200;
}
