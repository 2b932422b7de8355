/**
 * A pipeline's `queryLog` setting (docs/API.md, "Query log and insight"): how the API
 * shows it and how a create or patch becomes its two columns. Turning it on is refused
 * with 403 when the server forbids query logs (RAGD_QUERY_LOG=off).
 */
import { t } from "elysia";
import type { Collection } from "../../db/schema";
import { AppError } from "../../http/errors";
import { StrictInteger } from "../../http/schemas";

export const DEFAULT_RETENTION_DAYS = 30;

export const QueryLogSetting = t.Object(
  {
    enabled: t.Optional(t.Boolean({ description: "Record this pipeline's searches; off by default." })),
    retentionDays: t.Optional(
      StrictInteger({ minimum: 1, maximum: 3650, description: "Days a logged search is kept (30 by default)." }),
    ),
  },
  { additionalProperties: false },
);

export const QueryLogShown = t.Object({
  enabled: t.Boolean(),
  retentionDays: StrictInteger(),
  allowed: t.Boolean({
    description: "False when the server forbids query logs (RAGD_QUERY_LOG=off): nothing is recorded.",
  }),
});

export type QueryLogInput = typeof QueryLogSetting.static;

/** The setting as the API shows it. */
export function presentQueryLog(row: Pick<Collection, "queryLog" | "queryLogDays">, allowed: boolean) {
  return { enabled: row.queryLog && allowed, retentionDays: row.queryLogDays, allowed };
}

/** The columns a create or patch writes; 403 forbidden when it turns the log on and the server forbids it. */
export function queryLogColumns(
  input: QueryLogInput | undefined,
  allowed: boolean,
): Partial<Pick<Collection, "queryLog" | "queryLogDays">> {
  if (input === undefined) return {};
  if (input.enabled && !allowed)
    throw new AppError(
      "forbidden",
      "the query log is turned off for this server (RAGD_QUERY_LOG=off); ask its administrator",
    );
  const out: Partial<Pick<Collection, "queryLog" | "queryLogDays">> = {};
  if (input.enabled !== undefined) out.queryLog = input.enabled;
  if (input.retentionDays !== undefined) out.queryLogDays = input.retentionDays;
  return out;
}
