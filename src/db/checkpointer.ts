/**
 * The server's WAL checkpoints, off the main thread. SQLite checkpoints by itself inside
 * the commit that takes the WAL past 1,000 pages: that commit then reads those pages back,
 * writes them into the database file and waits for two fsyncs, on the thread every
 * request and ingestion step shares (docs/ARCHITECTURE.md, "Where ingestion time goes").
 * The server's writer turns that off and a worker with its own connection checkpoints
 * instead (checkpoint-worker.ts); should the worker fail, the writer checkpoints by
 * itself again. CLI commands keep SQLite's own.
 */
import type { Database } from "bun:sqlite";
import type { FromCheckpointer, ToCheckpointer } from "./checkpoint-worker";

/** How often the worker looks at the WAL. */
const EVERY_MS = 1000;
/** SQLite's own threshold, restored if the worker fails. */
const SQLITE_DEFAULT_PAGES = 1000;
/** A stop waits this long for the worker's connection to close. */
const STOP_WAIT_MS = 5000;

/** Where the worker's code is: beside this file, or inside the compiled binary by its path under src/. */
function checkpointWorker(): string {
  return import.meta.url.includes("$bunfs")
    ? "./db/checkpoint-worker.ts"
    : new URL("./checkpoint-worker.ts", import.meta.url).href;
}

export class Checkpointer {
  private readonly worker: Worker;
  /** Set by a stop, or once the worker failed. */
  private stopped: Promise<void> | null = null;

  /** Starts checkpointing `path`, whose writer is `writer`; `onError` hears why it gave up. */
  constructor(
    private readonly writer: Database,
    path: string,
    private readonly onError: (message: string) => void,
  ) {
    writer.exec("PRAGMA wal_autocheckpoint = 0");
    // Named, so the thread is told apart from the ingestion workers (in /proc, in a profile).
    this.worker = new Worker(checkpointWorker(), { smol: true, name: "ragd-checkpoint" });
    this.worker.onmessage = (e: MessageEvent<FromCheckpointer>) => {
      if ("error" in e.data) this.fallBack(e.data.error);
    };
    this.worker.onerror = (e) => this.fallBack(e.message);
    this.worker.postMessage({ path, everyMs: EVERY_MS } satisfies ToCheckpointer);
  }

  /** Ends the worker once its connection is closed (at most STOP_WAIT_MS). */
  stop(): Promise<void> {
    this.stopped ??= new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.worker.terminate();
        resolve();
      };
      const timer = setTimeout(done, STOP_WAIT_MS);
      this.worker.onmessage = (e: MessageEvent<FromCheckpointer>) => {
        if ("stopped" in e.data) done();
      };
      this.worker.onerror = done;
      this.worker.postMessage({ stop: true } satisfies ToCheckpointer);
    });
    return this.stopped;
  }

  /** The worker failed: the writer checkpoints by itself again. */
  private fallBack(message: string): void {
    if (this.stopped !== null) return;
    this.writer.exec(`PRAGMA wal_autocheckpoint = ${SQLITE_DEFAULT_PAGES}`);
    this.stopped = Promise.resolve();
    this.worker.terminate();
    this.onError(message);
  }
}
