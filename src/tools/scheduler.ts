/**
 * The periodic work of `ragd serve`: named jobs, each run every `everyMs` of the clock
 * (tools/clock.ts). createServices adds them, from settings (docs/configuration.md,
 * "Time and periodic work"), and starts and stops them together; `tick(name)` runs a
 * job now and waits for it, as a test does instead of waiting out its interval.
 *
 * A job's run is not awaited by its timer: a run that takes longer than the interval
 * overlaps the next, as with setInterval, and each job guards its own work; stop() ends
 * the timers and leaves runs under way to their owners' own stop. A failed run is reported
 * to `onError` and the job goes on.
 */
import { type Cancel, type Clock, systemClock } from "./clock";

export type JobRun = () => unknown;

interface Job {
  everyMs: number;
  run: JobRun;
  cancel: Cancel | null;
}

export class Scheduler {
  private readonly jobs = new Map<string, Job>();
  private started = false;

  constructor(
    private readonly onError: (job: string, err: unknown) => void,
    readonly clock: Clock = systemClock,
  ) {}

  /** Adds a job; once started, it runs first after `everyMs`. Names are unique. */
  add(name: string, everyMs: number, run: JobRun): void {
    if (this.jobs.has(name)) throw new Error(`a job named ${name} is already scheduled`);
    if (!(everyMs > 0)) throw new Error(`job ${name} needs a positive interval, got ${everyMs}`);
    const job: Job = { everyMs, run, cancel: null };
    this.jobs.set(name, job);
    if (this.started) this.arm(name, job);
  }

  /** Stops one job's timer and forgets it (a part that stops before the others). */
  remove(name: string): void {
    this.jobs.get(name)?.cancel?.();
    this.jobs.delete(name);
  }

  /** Starts every job's timer. */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const [name, job] of this.jobs) this.arm(name, job);
  }

  /** Stops every timer. */
  stop(): void {
    this.started = false;
    for (const job of this.jobs.values()) {
      job.cancel?.();
      job.cancel = null;
    }
  }

  /** The job names, in the order they were added. */
  names(): string[] {
    return [...this.jobs.keys()];
  }

  /** Runs the named job now (or every job, in order) and waits for it; a failure is reported, not thrown. */
  async tick(name?: string): Promise<void> {
    const names = name === undefined ? this.names() : [name];
    for (const n of names) {
      if (!this.jobs.has(n)) throw new Error(`no job named ${n}`);
      await this.runOnce(n);
    }
  }

  private arm(name: string, job: Job): void {
    job.cancel = this.clock.every(job.everyMs, () => void this.runOnce(name));
  }

  private async runOnce(name: string): Promise<void> {
    const job = this.jobs.get(name);
    if (!job) return;
    try {
      await job.run();
    } catch (err) {
      this.onError(name, err);
    }
  }
}
