/**
 * JSON-lines logger on stderr. Callers pass structured fields; secrets are never
 * passed in (passwords, keys, cookies and tokens stay out of every call site), and
 * fields whose names suggest a secret are masked as a second line of defence.
 */
import type { LogLevel } from "./config";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET = /pass|secret|token|cookie|authorization|^key$/i;

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

function mask(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (SECRET.test(k)) out[k] = "[redacted]";
    else if (v instanceof Error) out[k] = { name: v.name, message: v.message };
    else out[k] = v;
  }
  return out;
}

let stderrClosed = false;
let stderrWatched = false;

/** Lines of this turn not written yet (see writeStderr). */
let pendingLines: string[] = [];

/**
 * Writes a line to stderr. A log line is never worth the process: when stderr is
 * closed (`ragd serve 2>&1 | head -1`), the stream reports EPIPE as an "error" event,
 * which unhandled would end the server; it is swallowed and logging stops there.
 * The lines of one turn go in one write, at its end or at exit: small documents end by
 * the hundred in a turn, each with its line, and a write each was 3 % of the main
 * thread's time during a batch ingestion.
 */
function writeStderr(line: string): void {
  if (stderrClosed) return;
  if (!stderrWatched) {
    stderrWatched = true;
    process.stderr.on("error", () => {
      stderrClosed = true;
    });
    process.on("exit", flushStderr);
  }
  pendingLines.push(line);
  if (pendingLines.length === 1) setImmediate(flushStderr);
}

function flushStderr(): void {
  if (pendingLines.length === 0 || stderrClosed) return;
  const text = pendingLines.join("");
  pendingLines = [];
  try {
    process.stderr.write(text);
  } catch {
    stderrClosed = true;
  }
}

/** Creates a logger that writes lines at or above `level`; a failing `write` is ignored. */
export function createLogger(level: LogLevel, write: (line: string) => void = writeStderr): Logger {
  const min = ORDER[level];
  const emit =
    (lvl: LogLevel) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      if (ORDER[lvl] < min) return;
      try {
        write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...mask(fields) })}\n`);
      } catch {
        // see writeStderr: logging must never take the process down
      }
    };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}
