/**
 * Per-key task chains for the single writer (writer.ts). A task run with run() has its
 * key to itself: it starts once every task queued before it under that key has ended,
 * and tasks queued after it wait for it. Tasks run with runShared() may overlap one
 * another (appends of rows that cannot be stored yet: LanceDB rebases one append's
 * commit on another's), never an exclusive task on either side of them.
 * pause() holds every task from starting, across all keys, once those running have
 * ended: a backup takes its snapshot then (docs/API.md, Backup and restore).
 */

interface Chain {
  /** Settles when every task queued so far under the key has ended. */
  tail: Promise<void>;
  /** What the shared tasks queued since the last exclusive one start after; null after an exclusive task. */
  sharedAfter: Promise<void> | null;
}

const settled = (p: Promise<unknown>): Promise<void> =>
  p.then(
    () => {},
    () => {},
  );

export class SerialQueues {
  private readonly chains = new Map<string, Chain>();
  private gate: Promise<void> | null = null;
  private active = 0;
  private idle: (() => void) | null = null;

  /** Runs `task` alone under `key`, after every task queued before it, whatever their outcome. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.chains.get(key)?.tail ?? Promise.resolve();
    const result = before.then(() => this.counted(task));
    this.extend(key, settled(result), null);
    return result;
  }

  /**
   * Runs `task` after the exclusive tasks queued before it, beside the shared tasks queued
   * since the last of them; an exclusive task queued later waits for it.
   */
  runShared<T>(key: string, task: () => Promise<T>): Promise<T> {
    const chain = this.chains.get(key);
    const after = chain?.sharedAfter ?? chain?.tail ?? Promise.resolve();
    const result = after.then(() => this.counted(task));
    this.extend(
      key,
      Promise.all([chain?.tail, settled(result)]).then(() => {}),
      after,
    );
    return result;
  }

  /** Keys with queued or running tasks. */
  keys(): string[] {
    return [...this.chains.keys()];
  }

  /** Waits until no task runs and holds new ones back; call the returned function to let them go. */
  async pause(): Promise<() => void> {
    while (this.gate) await this.gate;
    let open!: () => void;
    this.gate = new Promise<void>((r) => {
      open = r;
    });
    if (this.active > 0) await new Promise<void>((r) => (this.idle = r));
    this.idle = null;
    return () => {
      this.gate = null;
      open();
    };
  }

  private extend(key: string, tail: Promise<void>, sharedAfter: Promise<void> | null): void {
    const chain = { tail, sharedAfter };
    this.chains.set(key, chain);
    void tail.then(() => this.chains.get(key) === chain && this.chains.delete(key));
  }

  private async counted<T>(task: () => Promise<T>): Promise<T> {
    // Checked again after each wait: a pause may have begun while this task waited.
    while (this.gate) await this.gate;
    this.active++;
    try {
      return await task();
    } finally {
      if (--this.active === 0) this.idle?.();
    }
  }
}
