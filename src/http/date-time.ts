/**
 * The one reading of a date-time a client sends (docs/API.md, Conventions, "Timestamps"): ISO 8601
 * with a time zone, on a day the calendar has. `Date.parse` alone rolls an impossible day
 * over (2099-02-30 becomes 2099-03-02) and reads a date-time without a zone in the
 * server's own, so neither reaches it.
 */
import { AppError } from "./errors";

const SHAPE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** Milliseconds since the epoch of `input`, or 400 `invalid_request` naming `field`. */
export function parseDateTime(input: unknown, field: string): number {
  const m = typeof input === "string" ? SHAPE.exec(input) : null;
  const ms = m && isCalendarDay(m) ? Date.parse(input as string) : Number.NaN;
  if (Number.isNaN(ms)) {
    const message = "must be an ISO 8601 date-time with a time zone, on a real day, e.g. 2030-01-31T00:00:00Z";
    throw new AppError("invalid_request", `${field}: ${message}`, [{ field, message }]);
  }
  return ms;
}

/** The day exists (no 30 February, no 31 April) and the hour is 0–23, not the next day's 24. */
function isCalendarDay([, y, mo, d, h]: RegExpExecArray): boolean {
  const day = new Date(0);
  day.setUTCFullYear(Number(y), Number(mo) - 1, Number(d)); // Date.UTC would read year 50 as 1950
  return day.toISOString().slice(0, 10) === `${y}-${mo}-${d}` && Number(h) < 24;
}
