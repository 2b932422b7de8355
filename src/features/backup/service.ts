/**
 * Backups of the running server: on request (routes.ts, `ragd backup`) and on a
 * schedule with retention (RAGD_BACKUP_DIR, RAGD_BACKUP_EVERY, RAGD_BACKUP_KEEP).
 */
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { backupToFile, type PreparedBackup, prepareBackup } from "../../backup/backup";
import type { Freezable, RemovalHold } from "../../backup/snapshot";
import type { Logger } from "../../log";
import { AppError, diskOnly } from "../../http/errors";
import { newControlToken } from "./control";

export interface BackupSchedule {
  dir: string;
  everyMs: number;
  keep: number;
}

/** Archive names of scheduled backups; they sort by time. */
const SCHEDULED = /^ragd-backup-\d{8}T\d{6}Z\.tar$/;

export class BackupService {
  /** The token of this process's control file (control.ts). */
  readonly controlToken = newControlToken();
  private timer: Timer | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly dataDir: string,
    private readonly vectorStore: Freezable,
    /** The data directory's files; null when they are in object storage, which a backup does not copy. */
    private readonly files: RemovalHold | null,
    private readonly log: Logger,
    /** Whether the metadata is in PostgreSQL, which a backup of the data directory does not hold. */
    private readonly onPostgres = false,
  ) {}

  /** A snapshot now and its archive's bytes (for streaming); see takeSnapshot for `whileFrozen`. */
  async prepare(whileFrozen?: () => Promise<void>): Promise<PreparedBackup> {
    return prepareBackup(this.dataDir, this.vectorStore, this.localFiles(), whileFrozen);
  }

  private localFiles(): RemovalHold {
    if (this.onPostgres)
      throw new AppError(
        "not_implemented",
        "a backup copies the data directory, and this server keeps its metadata in PostgreSQL (RAGD_DATABASE_URL); back the database up with PostgreSQL's own tools",
      );
    if (this.files === null)
      throw diskOnly("a backup", "copy the bucket with the store's own tools, and ragd.db with sqlite3's .backup");
    return this.files;
  }

  /** Starts scheduled backups: the first once `everyMs` has passed since the newest kept one. */
  schedule(s: BackupSchedule): void {
    mkdirSync(s.dir, { recursive: true });
    // Partial archives of a backup that was killed part-way.
    for (const f of readdirSync(s.dir))
      if (/^\.ragd-backup-.*\.partial-/.test(f)) rmSync(join(s.dir, f), { force: true });
    const newest = archives(s.dir).at(-1);
    const last = newest ? timeOf(newest) : 0;
    this.arm(s, Math.max(0, last + s.everyMs - Date.now()));
  }

  /** Stops the schedule and waits for a scheduled backup that is running. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private arm(s: BackupSchedule, delay: number): void {
    // setTimeout's limit is about 24.8 days; a longer wait is taken in steps.
    const step = Math.min(delay, 2 ** 31 - 1);
    this.timer = setTimeout(() => {
      if (step < delay) return this.arm(s, delay - step);
      this.running = this.runScheduled(s).finally(() => {
        this.running = null;
        if (this.timer !== null) this.arm(s, s.everyMs);
      });
    }, step);
  }

  private async runScheduled(s: BackupSchedule): Promise<void> {
    const name = `ragd-backup-${new Date()
      .toISOString()
      .replace(/[-:]/g, "")
      .replace(/\.\d+Z$/, "Z")}.tar`;
    const started = Date.now();
    try {
      const { size } = await backupToFile(this.dataDir, this.vectorStore, this.localFiles(), join(s.dir, name));
      this.log.info("backup written", { file: name, bytes: size, ms: Date.now() - started });
      for (const old of archives(s.dir).slice(0, -s.keep)) rmSync(join(s.dir, old), { force: true });
    } catch (err) {
      this.log.error("scheduled backup failed", { error: err });
    }
  }
}

function archives(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => SCHEDULED.test(f))
    .sort();
}

function timeOf(name: string): number {
  const m = /(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z/.exec(name)!;
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
}
