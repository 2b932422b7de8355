/**
 * A logger that says each message once, then at most once a minute, with how many
 * repeats it held back: a failure that recurs every second (a full disk refusing each
 * scheduling tick, say) must not flood the log.
 */
import type { Logger } from "./log";

/** Wraps `log` so that each distinct message is written at most once per `intervalMs`. */
export function throttledLogger(log: Logger, intervalMs = 60_000, now: () => number = Date.now): Logger {
  const last = new Map<string, { at: number; held: number }>();
  const emit =
    (level: keyof Logger) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      const key = `${level} ${msg}`;
      const seen = last.get(key);
      const t = now();
      if (seen && t - seen.at < intervalMs) {
        seen.held++;
        return;
      }
      last.set(key, { at: t, held: 0 });
      log[level](msg, seen?.held ? { ...fields, repeated: seen.held } : fields);
    };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}
