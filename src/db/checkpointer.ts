/**
 * Checkpoints on a thread of their own (checkpoint-worker.ts). A WAL checkpoint copies
 * the pages that commits appended to the WAL back into the database file and ends with
 * two fsyncs. Left to SQLite, the commit that crosses the WAL's size limit runs it, and
 * in a server every commit is on the main thread: in `bench/batch.ts` (5,000 small
 * documents) the main thread spent about 170 ms of a 2 s run in them, and on a slow disk
 * each fsync stops every request for as long as it takes.
 *
 * The worker's own connection runs PASSIVE checkpoints, which never wait for the writer:
 * the main thread says "wrote" after each commit, and the worker checkpoints shortly
 * after the first it hears, gathering what the commits in between wrote. The writing
 * connection keeps SQLite's automatic checkpoint as a bound (`SAFETY_BYTES`), for a
 * worker that falls behind or fails. One sync stays with the writer: SQLite syncs the
 * WAL's header when a write starts the WAL over, once a checkpoint has copied all of it
 * (the checkpoint synced the rest before copying).
 */

/** What the main thread tells the checkpoint worker. */
export type ToCheckpointer = { type: "open"; path: string } | { type: "wrote" } | { type: "close" };

/** What the checkpoint worker answers. */
export type FromCheckpointer =
  | { type: "done"; frames: number; copied: number }
  | { type: "failed"; error: string }
  | { type: "closed" };

/**
 * The WAL size at which a commit on the writing connection checkpoints after all. Below
 * it the worker's checkpoints keep the WAL short; a burst of commits that never leaves
 * the worker a moment to catch up is bounded by it.
 */
export const SAFETY_BYTES = 64 * 1024 * 1024;

/** How long `close` waits for the worker's connection to close. */
const CLOSE_WAIT_MS = 5000;

/** Where the worker's code is: beside this file, or inside the compiled binary by its path under src/. */
function workerUrl(): string {
  return import.meta.url.includes("$bunfs")
    ? "./db/checkpoint-worker.ts"
    : new URL("./checkpoint-worker.ts", import.meta.url).href;
}

export class Checkpointer {
  private readonly worker: Worker;
  private closing: Promise<boolean> | null = null;
  /** The worker's thread has ended. */
  private ended = false;
  /** Ends `close`: true when the worker answered, false when it ended without answering. */
  private settle: (answered: boolean) => void = () => {};
  /** Checkpoints the worker ran, and the last one's WAL frames and frames copied. */
  readonly passes = { count: 0, frames: 0, copied: 0 };

  constructor(
    dbPath: string,
    private readonly onError: (message: string) => void = () => {},
  ) {
    this.worker = new Worker(workerUrl(), { smol: true });
    (this.worker as Worker & { unref(): void }).unref();
    this.worker.onmessage = (e: MessageEvent<FromCheckpointer>) => this.heard(e.data);
    this.worker.onerror = (e) => this.onError(e.message);
    // A worker that ended (it crashed) answers nothing: a close waiting for it stops waiting.
    this.worker.addEventListener("close", () => {
      this.ended = true;
      this.settle(false);
    });
    this.tell({ type: "open", path: dbPath });
  }

  /** A commit ended: the worker checkpoints soon (one message a commit, a few a second when busy). */
  wrote(): void {
    if (this.closing === null) this.tell({ type: "wrote" });
  }

  /**
   * Closes the worker's connection, then ends the worker; true when the worker said it
   * closed, false when it had ended or did not answer within CLOSE_WAIT_MS.
   */
  close(): Promise<boolean> {
    this.closing ??= new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), CLOSE_WAIT_MS);
      this.settle = (answered) => {
        clearTimeout(timer);
        resolve(answered);
      };
      if (this.ended) this.settle(false);
      else this.tell({ type: "close" });
    }).finally(() => this.worker.terminate());
    return this.closing;
  }

  private heard(msg: FromCheckpointer): void {
    if (msg.type === "closed") {
      this.settle(true);
      return;
    }
    if (msg.type === "failed") this.onError(msg.error);
    else Object.assign(this.passes, { count: this.passes.count + 1, frames: msg.frames, copied: msg.copied });
  }

  private tell(msg: ToCheckpointer): void {
    this.worker.postMessage(msg);
  }
}
