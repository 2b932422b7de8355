/**
 * The small parts behind a full disk: which errors mean "out of space", how an
 * error message loses the paths of the machine that built LanceDB, and the log
 * that says a recurring failure once, then at most once a minute.
 */
import { describe, expect, test } from "bun:test";
import { throttledLogger } from "../src/log-throttle";
import { createLogger } from "../src/log";
import { DiskFullError, diskFullMessage, isOutOfSpace } from "../src/tools/disk";
import { scrubMessage } from "../src/tools/scrub";

const LANCE_FULL =
  "lance error: LanceError(IO): Generic LocalFileSystem error: Unable to copy file from /srv/ragd/lance/c_1_g1.lance/_versions/.tmp_3 to /srv/ragd/lance/c_1_g1.lance/_versions/3.manifest: No space left on device (os error 28), /usr/local/cargo/registry/src/index.crates.io-6f17d22bba15001f/lance-table-0.20.0/src/io/commit.rs:910:54";

describe("isOutOfSpace", () => {
  const sqliteFull = Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
  const enospc = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  test.each([
    ["SQLite's SQLITE_FULL", sqliteFull, true],
    ["errno ENOSPC", enospc, true],
    ["LanceDB's Rust error", new Error(LANCE_FULL), true],
    ["a message", LANCE_FULL, true],
    ["wrapped as a cause", new Error("could not store", { cause: sqliteFull }), true],
    ["DiskFullError", new DiskFullError("/srv/ragd", 0.5), true],
    ["another SQLite error", Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" }), false],
    ["another I/O error", new Error("LanceError(IO): Not found: /srv/ragd/lance/x"), false],
    ["nothing", undefined, false],
  ])("%s", (_, err, expected) => expect(isOutOfSpace(err)).toBe(expected));
});

test("the sentence names the disk and how much is free", () => {
  expect(diskFullMessage("/srv/ragd", 0.46)).toBe("the disk holding /srv/ragd is full (0.4 MB free)");
  expect(diskFullMessage("/srv/ragd", 180.9)).toBe("the disk holding /srv/ragd is full (180 MB free)");
});

describe("scrubMessage", () => {
  test.each([
    [
      "LanceDB's build location goes, the data directory's paths stay",
      LANCE_FULL,
      "lance error: LanceError(IO): Generic LocalFileSystem error: Unable to copy file from /srv/ragd/lance/c_1_g1.lance/_versions/.tmp_3 to /srv/ragd/lance/c_1_g1.lance/_versions/3.manifest: No space left on device (os error 28)",
    ],
    [
      "a home-directory cargo path",
      "Execution error: failed at /home/runner/.cargo/git/checkouts/lance/src/io.rs:12:3",
      "Execution error: failed",
    ],
    ["other filesystem paths are hidden", "cannot open /etc/ragd/x.pem: denied", "cannot open [path]: denied"],
    [
      "a cargo registry path without a line number",
      "failed in /usr/local/cargo/registry/src/index-1/lance-0.9/x",
      "failed in [path]",
    ],
    ["a source file anywhere", "panicked in /ci/src/store.ts:12", "panicked in [path]"],
    [
      "URL paths are ragd's routes, not files",
      "API keys only work on POST /api/rag/query and /api/rag/documents; sign in to manage pipelines",
      "API keys only work on POST /api/rag/query and /api/rag/documents; sign in to manage pipelines",
    ],
    [
      "an embedder's missing route survives",
      "Ollama at http://127.0.0.1:11434 has no /api/embed (404: not found); it needs Ollama 0.3.4 or newer",
      "Ollama at http://127.0.0.1:11434 has no /api/embed (404: not found); it needs Ollama 0.3.4 or newer",
    ],
    ["URLs are not paths", "GET https://example.com/a/b failed: 404", "GET https://example.com/a/b failed: 404"],
    ["a plain sentence is left alone", "the file is larger than 10 bytes", "the file is larger than 10 bytes"],
  ])("%s", (_, message, expected) => {
    const out = scrubMessage(message, "/srv/ragd");
    expect(out).toBe(expected);
    expect(out).not.toMatch(/cargo|\.rs:\d/);
  });
});

test("a recurring log line is written once, then at most once a minute, with the count held back", () => {
  const lines: string[] = [];
  let now = 0;
  const log = throttledLogger(
    createLogger("info", (l) => lines.push(l)),
    60_000,
    () => now,
  );
  for (now = 0; now < 130_000; now += 1000) log.error("could not start ingestion tasks", { error: "full" });
  log.warn("another message");
  const written = lines.map((l) => JSON.parse(l) as { msg: string; repeated?: number });
  expect(written.map((l) => [l.msg, l.repeated])).toEqual([
    ["could not start ingestion tasks", undefined],
    ["could not start ingestion tasks", 59],
    ["could not start ingestion tasks", 59],
    ["another message", undefined],
  ]);
});
