/**
 * Group commit. Writes that arrive in the same turn of the event loop (sources
 * created by concurrent requests, tasks finished by the workers) run in one
 * transaction instead of one each: a commit costs far more than the few rows it
 * carries. Each write keeps its own savepoint, so one that throws rolls back alone
 * and its caller gets the error; the others commit. A caller's promise settles only
 * after the commit, so "accepted" still means "on disk".
 */
import { savepoint } from "./prepared";
import type { Store, Tx } from "./store";

interface Queued {
  fn: (tx: Tx) => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

const NO_ERROR = Symbol("no error");

export class WriteBatch {
  private queue: Queued[] = [];
  private scheduled = false;

  constructor(private readonly store: Store) {}

  /** Runs `fn` inside the next group transaction; resolves with its result once committed. */
  run<T>(fn: (tx: Tx) => Promise<T> | T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  /** Commits whatever is queued now (also called at shutdown). */
  async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    let results: { ok: boolean; value: unknown }[];
    try {
      results = await this.store.atomically((tx) => this.runEach(tx, batch));
    } catch (err) {
      for (const q of batch) q.reject(err);
      return;
    }
    batch.forEach((q, i) => {
      if (results[i]!.ok) q.resolve(results[i]!.value);
      else q.reject(results[i]!.value);
    });
  }

  /** Each write in a savepoint of its own: a failing write undoes only itself. */
  private async runEach(tx: Tx, batch: Queued[]): Promise<{ ok: boolean; value: unknown }[]> {
    const results: { ok: boolean; value: unknown }[] = [];
    for (const q of batch) {
      let own: unknown = NO_ERROR;
      try {
        const value = await savepoint(tx, async (t) => {
          try {
            return await q.fn(t);
          } catch (err) {
            own = err;
            throw err;
          }
        });
        results.push({ ok: true, value });
      } catch (err) {
        // The savepoint itself failed (the transaction is gone, as a full disk can end
        // it): nothing more may run, not even in autocommit; the whole batch fails.
        if (err !== own) throw err;
        results.push({ ok: false, value: err });
      }
    }
    return results;
  }
}
