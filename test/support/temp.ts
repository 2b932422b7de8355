/** A fresh temporary directory, from a module light enough for scripts/test.ts to load before the build. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function tempDir(prefix = "ragd-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
