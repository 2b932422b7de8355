/**
 * `ragd ingest DIR` and awkward folders (docs/applications.md, A folder: `ragd ingest`): DIR
 * given as a link to a folder, links under it that loop, and a folder under it that cannot be
 * listed, which fails alone and whose documents `--delete` keeps. Against a server on loopback.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeApp, type TestApp, tempDir } from "./support/app";
import { Client } from "./support/ingest";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
/** Root reads every folder whatever its mode: the unreadable case runs as nobody then. */
const OTHER_USER = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

let t: TestApp;
let key: string;
let server: ReturnType<typeof Bun.serve>;
let url: string;
const root = tempDir("ragd-ingest-folders-");
const dir = join(root, "handbook");

/** `ragd ingest` from source as a process (as `user` when given): its exit code and output. */
function ingest(args: string[], user: { uid?: number; gid?: number } = {}) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const proc = spawn(process.execPath, [MAIN, "ingest", ...args], {
      env: { ...process.env, RAGD_API_KEY: key, RAGD_URL: url },
      ...user,
    });
    let out = "";
    let err = "";
    proc.stdout.on("data", (d) => (out += d));
    proc.stderr.on("data", (d) => (err += d));
    proc.on("exit", (code) => resolve({ code, out: out.trim(), err }));
  });
}

const externalIds = async () => {
  const r = await t.call("GET", "/api/rag/documents?pageSize=1000", { headers: { authorization: `Bearer ${key}` } });
  return r.body.documents.map((d: { externalId: string }) => d.externalId).sort();
};

beforeAll(async () => {
  t = await makeApp({ workers: 1 });
  const c = await Client.create(t);
  const pipeline = await c.pipeline({ name: "folders", embeddingModel: "builtin" });
  const k = await c.call("POST", `/api/rag/pipelines/${pipeline}/keys`, { name: "sync", scopes: ["query", "ingest"] });
  key = k.body.key;
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => t.handle(req) });
  url = `http://127.0.0.1:${server.port}`;
  chmodSync(root, 0o755);
  mkdirSync(join(dir, "loop"), { recursive: true });
  mkdirSync(join(dir, "private"));
  writeFileSync(join(dir, "a.txt"), "The lighthouse keeper logs the fog every morning.");
  writeFileSync(join(dir, "private", "b.txt"), "Salaries are reviewed in April.");
  symlinkSync("..", join(dir, "loop", "up"));
  symlinkSync(dir, join(root, "link"));
}, 30_000);

afterAll(async () => {
  server?.stop(true);
  await t?.close();
  chmodSync(join(dir, "private"), 0o755);
  rmSync(root, { recursive: true, force: true });
});

test("DIR may be a link to a folder; a link looping back under it is skipped", async () => {
  const r = await ingest([join(root, "link")]);
  expect(r.err).toContain("skipped loop/up: a symbolic link");
  expect(r.out).toBe("ragd ingest: 2 files: 2 created, 0 replaced, 0 unchanged, 0 failed");
  expect(r.code).toBe(0);
  expect(await externalIds()).toEqual(["a.txt", "private/b.txt"]);
}, 30_000);

test("a folder that cannot be listed fails alone, and --delete keeps its documents", async () => {
  chmodSync(join(dir, "private"), 0);
  try {
    const r = await ingest([dir, "--delete"], OTHER_USER);
    expect(r.err).toContain("failed private/: cannot list this folder (EACCES)");
    expect(r.out).toBe("ragd ingest: 1 files: 0 created, 0 replaced, 1 unchanged, 0 deleted, 1 failed");
    expect(r.code).toBe(1);
    expect(await externalIds()).toEqual(["a.txt", "private/b.txt"]);
  } finally {
    chmodSync(join(dir, "private"), 0o755);
  }
}, 30_000);
