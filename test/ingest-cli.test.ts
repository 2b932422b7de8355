/**
 * `ragd ingest DIR` (docs/API.md, Documents API; docs/applications.md): a folder kept in step
 * with a pipeline through the documents API, run as a process against a server on loopback.
 * Relative paths are the external ids, unchanged files are not even sent, `--delete` removes
 * what left the folder, and the exit code says how it went.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeApp, type TestApp, tempDir } from "./support/app";
import { Client } from "./support/ingest";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");

let t: TestApp;
let c: Client;
let pipeline: string;
let key: string;
let server: ReturnType<typeof Bun.serve>;
let url: string;
let puts = 0;
const dir = tempDir("ragd-ingest-cli-");

/** `ragd ingest` from source, as a process: its exit code and output. */
async function ingest(...args: string[]) {
  const proc = Bun.spawn([process.execPath, MAIN, "ingest", ...args], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, RAGD_API_KEY: key, RAGD_URL: url },
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, out: out.trim(), err };
}

/** The pipeline's documents by external id. */
async function documents() {
  const r = await t.call("GET", "/api/rag/documents?pageSize=1000", { headers: { authorization: `Bearer ${key}` } });
  expect(r.status).toBe(200);
  return new Map<string, { metadata: Record<string, unknown>; contentHash: string | null }>(
    r.body.documents.map((d: { externalId: string }) => [d.externalId, d]),
  );
}

beforeAll(async () => {
  t = await makeApp({ workers: 1 });
  c = await Client.create(t);
  pipeline = await c.pipeline({ name: "folder", embeddingModel: "builtin" });
  const k = await c.call("POST", `/api/rag/pipelines/${pipeline}/keys`, { name: "sync", scopes: ["query", "ingest"] });
  key = k.body.key;
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      if (req.method === "PUT") puts++;
      return t.handle(req);
    },
  });
  url = `http://127.0.0.1:${server.port}`;
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "a.txt"), "The lighthouse keeper logs the fog every morning.");
  writeFileSync(join(dir, "b.md"), "# Boats\n\nThe ferry leaves at seven.");
  writeFileSync(join(dir, "sub", "c.txt"), "Harbour fees are paid in March.");
  writeFileSync(join(dir, ".hidden.txt"), "not sent");
  symlinkSync("/etc/hostname", join(dir, "outside.txt"));
}, 30_000);

afterAll(async () => {
  server?.stop(true);
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("ragd ingest", () => {
  test("sends every file once, named by its relative path; skips hidden files and links", async () => {
    const r = await ingest(dir);
    expect(r.code).toBe(0);
    expect(r.out).toBe("ragd ingest: 3 files: 3 created, 0 replaced, 0 unchanged, 0 failed");
    expect(r.err).toContain("skipped outside.txt: a symbolic link");
    const docs = await documents();
    expect([...docs.keys()].sort()).toEqual(["a.txt", "b.md", "sub/c.txt"]);
    expect(docs.get("sub/c.txt")!.metadata).toMatchObject({ path: "sub/c.txt", extension: "txt" });
    await c.allSettled(pipeline);
    const hit = await c.query(key, { query: "ferry leaves", topK: 1 });
    expect(hit.body.results[0].metadata.sourceName).toBe("b.md");
  }, 30_000);

  test("a second run sends nothing when nothing changed", async () => {
    const before = puts;
    const r = await ingest(dir);
    expect(r.out).toBe("ragd ingest: 3 files: 0 created, 0 replaced, 3 unchanged, 0 failed");
    expect(puts).toBe(before);
  });

  test("after changes: created, replaced, unchanged and, with --delete, deleted", async () => {
    writeFileSync(join(dir, "b.md"), "# Boats\n\nThe ferry now leaves at nine.");
    rmSync(join(dir, "sub", "c.txt"));
    writeFileSync(join(dir, "d.txt"), "Nets are mended on Sundays.");
    const before = puts;
    const r = await ingest(dir, "--delete");
    expect(r.code).toBe(0);
    expect(r.out).toBe("ragd ingest: 3 files: 1 created, 1 replaced, 1 unchanged, 1 deleted, 0 failed");
    expect(puts - before).toBe(2);
    expect([...(await documents()).keys()].sort()).toEqual(["a.txt", "b.md", "d.txt"]);
    await c.allSettled(pipeline);
    const hit = await c.query(key, { query: "ferry nine", topK: 1, mode: "keyword" });
    expect(hit.body.results[0].content).toContain("nine");
  }, 30_000);

  test("--prefix keeps two folders apart, and --delete touches only its own prefix", async () => {
    const other = tempDir("ragd-ingest-cli-other-");
    writeFileSync(join(other, "e.txt"), "The tide table is pinned by the door.");
    expect((await ingest(other, "--prefix", "other/", "--delete")).out).toBe(
      "ragd ingest: 1 files: 1 created, 0 replaced, 0 unchanged, 0 deleted, 0 failed",
    );
    expect([...(await documents()).keys()].sort()).toEqual(["a.txt", "b.md", "d.txt", "other/e.txt"]);
    rmSync(other, { recursive: true, force: true });
  });

  test("a file the server refuses fails alone (exit 1); a refused key stops the run (exit 2)", async () => {
    writeFileSync(join(dir, "blob.bin"), new Uint8Array([0, 1, 2, 3, 0, 0, 255, 254, 0, 7]));
    const r = await ingest(dir, "--include", "*.bin");
    expect(r.code).toBe(1);
    expect(r.out).toBe("ragd ingest: 1 files: 0 created, 0 replaced, 0 unchanged, 1 failed");
    expect(r.err).toContain("failed blob.bin: 415");
    rmSync(join(dir, "blob.bin"));
    const bad = await ingest(dir, "--key", `rag_${"x".repeat(40)}`);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("401");
    const query = await c.call("POST", `/api/rag/pipelines/${pipeline}/keys`, { name: "q" });
    const readOnly = await ingest(dir, "--key", query.body.key);
    expect(readOnly.code).toBe(2);
    expect(readOnly.err).toContain("insufficient_scope");
    expect((await ingest(join(dir, "missing"))).code).toBe(2);
  }, 30_000);
});
