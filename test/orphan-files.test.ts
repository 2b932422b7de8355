// At start, ragd removes the stored files of collections that no longer exist (a crash
// between a delete and its clean-up), through the file store's listing (src/files/store.ts).
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defaultConfig } from "../src/config";
import { createLogger } from "../src/log";
import { closeServices, createServices } from "../src/services";
import { tempDir } from "./support/app";

test("files of a deleted collection go at start; what is not a collection's is left alone", async () => {
  const dataDir = tempDir();
  try {
    const files = join(dataDir, "files");
    const gone = crypto.randomUUID();
    mkdirSync(join(files, gone), { recursive: true });
    writeFileSync(join(files, gone, crypto.randomUUID()), "bytes of a deleted pipeline");
    // Not ragd's: a file system's own directory, a note an operator left.
    mkdirSync(join(files, "lost+found"));
    writeFileSync(join(files, "README"), "kept");
    mkdirSync(join(files, ".tmp"), { recursive: true });
    writeFileSync(join(files, ".tmp", `doc-${crypto.randomUUID()}`), "half an upload");
    const config = { ...defaultConfig(), dataDir, log: "error" as const, workers: 1 };
    const services = await createServices(
      config,
      createLogger("error", () => {}),
    );
    try {
      expect(existsSync(join(files, gone))).toBe(false);
      expect(readdirSync(files).sort()).toEqual([".tmp", "README", "lost+found"]);
      expect(readdirSync(join(files, ".tmp"))).toEqual([]);
    } finally {
      await closeServices(services);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);
