/**
 * Per-key promise chains: tasks with the same key run one at a time, in call order.
 * pause() holds every task from starting, across all keys, once those running have
 * ended: a backup takes its snapshot then (docs/API.md, Backup and restore).
 */
export class SerialQueues {
  private readonly tails = new Map<string, Promise<void>>();
  private gate: Promise<void> | null = null;
  private active = 0;
  private idle: (() => void) | null = null;

  /** Runs `task` after every task queued before it under `key`, whatever their outcome. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const result = (this.tails.get(key) ?? Promise.resolve()).then(() => this.counted(task));
    const tail = result.then(
      () => {},
      () => {},
    );
    this.tails.set(key, tail);
    void tail.then(() => this.tails.get(key) === tail && this.tails.delete(key));
    return result;
  }

  /** Whether a pause() holds new tasks back now (a backup's snapshot is being taken). */
  get paused(): boolean {
    return this.gate !== null;
  }

  /** Keys with queued or running tasks. */
  keys(): string[] {
    return [...this.tails.keys()];
  }

  /** Waits until no task runs and holds new ones back; call the returned function to let them go. */
  async pause(): Promise<() => void> {
    while (this.gate !== null) await this.gate;
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

  private async counted<T>(task: () => Promise<T>): Promise<T> {
    // Checked again after each wait: a pause may have begun while this task waited.
    while (this.gate !== null) await this.gate;
    this.active++;
    try {
      return await task();
    } finally {
      if (--this.active === 0) this.idle?.();
    }
  }
}
