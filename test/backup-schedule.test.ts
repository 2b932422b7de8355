/**
 * Scheduled backups (docs/API.md, Backup and restore): RAGD_BACKUP_EVERY and its
 * siblings, archives that are whole and checked, and retention of RAGD_BACKUP_KEEP.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readArchive } from "../src/backup/archive";
import { type BackupManifest, checkBackupManifest } from "../src/backup/backup";
import { ConfigError, loadConfig } from "../src/config";
import { makeApp, tempDir } from "./support/app";
import { waitFor } from "./support/wait";

const dir = tempDir("ragd-scheduled-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("scheduled backups", () => {
  test("settings: durations with a unit, at least a minute; keep a positive count", () => {
    const { config } = loadConfig({}, { RAGD_BACKUP_DIR: "b", RAGD_BACKUP_EVERY: "6h", RAGD_BACKUP_KEEP: "3" });
    expect(config.backupDir).toMatch(/\/b$/);
    expect(config.backupEveryMs).toBe(6 * 3_600_000);
    expect(config.backupKeep).toBe(3);
    expect(loadConfig({}, {}).config).toMatchObject({ backupDir: null, backupEveryMs: 86_400_000, backupKeep: 7 });
    for (const bad of ["30s", "6", "1w", "-1h", "h"])
      expect(() => loadConfig({}, { RAGD_BACKUP_EVERY: bad })).toThrow(ConfigError);
    expect(() => loadConfig({}, { RAGD_BACKUP_KEEP: "0" })).toThrow(ConfigError);
  });

  test("archives every interval, keeps the newest, and clears partial ones", async () => {
    const backups = join(dir, "backups");
    mkdirSync(backups);
    const old = [
      "ragd-backup-20200101T000000Z.tar",
      "ragd-backup-20200102T000000Z.tar",
      "ragd-backup-20200103T000000Z.tar",
    ];
    for (const f of old) writeFileSync(join(backups, f), "old");
    writeFileSync(join(backups, ".ragd-backup-20200104T000000Z.tar.partial-1234abcd"), "cut short");
    writeFileSync(join(backups, "notes.txt"), "not ours");
    const app = await makeApp({ backupDir: backups, backupEveryMs: 1100, backupKeep: 2 });
    try {
      // Two archives of this run and none of the old ones left: two backups were written.
      await waitFor(
        "two new backups, the old ones removed",
        () => {
          const names = readdirSync(backups).filter((f) => f.startsWith("ragd-backup-"));
          return names.length === 2 && names.every((f) => !old.includes(f));
        },
        20_000,
      );
    } finally {
      await app.close();
    }
    const left = readdirSync(backups).sort();
    const archives = left.filter((f) => f.startsWith("ragd-backup-"));
    expect(left).toContain("notes.txt");
    expect(left.filter((f) => f.includes(".partial-"))).toEqual([]);
    expect(archives.length).toBe(2);
    for (const f of archives) {
      expect(old).not.toContain(f);
      const m = await readArchive<BackupManifest>(join(backups, f), checkBackupManifest);
      expect(m.entries.some((e) => e.path === "ragd.db")).toBe(true);
    }
  }, 30_000);
});
