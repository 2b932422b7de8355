/**
 * Backup and restore through the compiled binary (docs/API.md, Backup and restore):
 * `ragd backup` beside a running server and without one, the admin endpoint,
 * `ragd restore` and its refusals, and kill -9 during a backup or a restore.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONTROL_HEADER, readControlFile } from "../src/features/backup/control";
import { tempDir } from "./support/app";
import { BINARY, ensureBinary, type RunningBinary, runCli, startBinary, signUp } from "./support/binary";
import { waitFor } from "./support/wait";

const root = tempDir("ragd-backup-bin-");
const dirA = join(root, "a");
const jar: { cookie?: string } = {};
let server: RunningBinary;
let key = "";
let pipelineId = "";
let expected: unknown[] = [];

const QUERIES = ["billing address change", "refund policy", "password reset", "shipping to Norway"];
const MODES = ["vector", "keyword", "hybrid"];

async function answers(s: RunningBinary): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of QUERIES)
    for (const mode of MODES) {
      const r = await s.http("/api/rag/query", {
        method: "POST",
        json: { query, mode, topK: 5 },
        headers: { authorization: `Bearer ${key}` },
      });
      expect(r.status).toBe(200);
      out.push(r.body.results.map((x: any) => [x.content, x.score, x.metadata.sourceId, x.metadata.chunkIndex]));
    }
  return out;
}

beforeAll(async () => {
  await ensureBinary();
  // Index upkeep every half second: its first full pass follows the ingestion at once.
  server = await startBinary(dirA, { RAGD_UPKEEP_EVERY: "500ms" });
  expect(await signUp(server, "b@example.com", jar)).toBe(201);
  const p = (await server.http("/api/rag/pipelines", { method: "POST", json: { name: "Help" }, jar })).body.id;
  pipelineId = p;
  const topics = ["billing address", "refund policy", "password reset", "shipping abroad", "gift cards", "invoices"];
  for (const [i, t] of topics.entries()) {
    // Distinct wording per document: chunks that tie on a score may come back in either order.
    const lines = Array.from(
      { length: 20 },
      (_, j) => `Step ${j * 7 + i} of handling ${t} takes ${(i + 2) * (j + 3)} minutes.`,
    );
    const content = `${t}: ${lines.join(" ")} Case ${i} mentions Norway${", Spain".repeat(i + 1)} and ${t}.`;
    const r = await server.http(`/api/rag/pipelines/${p}/sources`, {
      method: "POST",
      json: { type: "text", name: t, content },
      jar,
    });
    expect(r.status).toBe(201);
  }
  await waitFor("sources ready", async () => {
    const r = await server.http(`/api/rag/pipelines/${p}/sources`, { jar });
    return r.body.every((s: any) => s.status === "ready") ? true : null;
  });
  key = (await server.http(`/api/rag/pipelines/${p}/keys`, { method: "POST", json: { name: "app" }, jar })).body.key;
  // The first full index upkeep builds the full-text index, which moves keyword scores a
  // little; the answers compared are those after it, once it covers every row.
  await waitFor("the full-text index over every row", async () => ftsCoversAll(p), 60_000, 250);
  expected = await answers(server);
}, 120_000);

/** Whether /metrics shows pipeline `p`'s full-text indexes, each with no row left out of it. */
async function ftsCoversAll(p: string): Promise<boolean> {
  const text = String((await server.http("/metrics")).body);
  const fts = (name: string) =>
    [
      ...text.matchAll(
        new RegExp(`^${name}\\{collection="${p}",generation="1",column="\\w+",type="FTS"\\} (\\d+)$`, "gm"),
      ),
    ].map((m) => Number(m[1]));
  const indexed = fts("ragd_lancedb_index_indexed_rows");
  return (
    indexed.length > 0 && indexed.every((n) => n > 0) && fts("ragd_lancedb_index_unindexed_rows").every((n) => n === 0)
  );
}

afterAll(() => {
  server?.proc.kill(9);
  rmSync(root, { recursive: true, force: true });
});

describe("ragd backup and restore (binary)", () => {
  test("backup beside the running server, restore, and the restored server answers the same", async () => {
    const file = join(root, "one.tar");
    const b = runCli(["backup", "--to", file, "--data-dir", dirA]);
    expect(b.stderr).toBe("");
    expect(b.code).toBe(0);
    expect(b.stdout).toContain("backup written");
    expect(readdirSync(root).filter((f) => f.includes(".partial-"))).toEqual([]);
    // The server kept serving, and no snapshot is left in its directory.
    expect(await answers(server)).toEqual(expected);
    expect(existsSync(join(dirA, ".backup-tmp")) && readdirSync(join(dirA, ".backup-tmp")).length).toBeFalsy();

    const dirB = join(root, "b");
    const r = runCli(["restore", "--from", file, "--data-dir", dirB]);
    expect(r.code).toBe(0);
    const restored = await startBinary(dirB);
    try {
      expect(await answers(restored)).toEqual(expected);
      expect((await restored.http("/api/auth/me", { jar })).status).toBe(200); // sessions came along
    } finally {
      restored.proc.kill();
      await restored.proc.exited;
    }
    // Refused: the directory is no longer empty.
    const again = runCli(["restore", "--from", file, "--data-dir", dirB]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("not empty");
  }, 120_000);

  test("the admin endpoint streams an archive to an administrator, and refuses others", async () => {
    expect((await server.http("/api/admin/backup", { method: "POST", json: {} })).status).toBe(401);
    const bad = await server.http("/api/admin/backup", {
      method: "POST",
      headers: { [CONTROL_HEADER]: "0".repeat(64) },
    });
    expect(bad.status).toBe(403);
    expect(bad.body.error.code).toBe("forbidden");
    // A signed-in user who is not an administrator (the first account is) gets 403 too.
    const member: { cookie?: string } = {};
    const made = await server.http("/api/auth/signup", {
      method: "POST",
      json: { email: "member@example.test", password: "a-long-password" },
      jar: member,
    });
    expect(made.status).toBe(201);
    const notAdmin = await server.http("/api/admin/backup", { method: "POST", json: {}, jar: member });
    expect(notAdmin.status).toBe(403);
    expect(notAdmin.body.error.code).toBe("forbidden");
    const res = await fetch(`${server.url}/api/admin/backup`, {
      method: "POST",
      headers: { cookie: jar.cookie!, "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-tar");
    expect(res.headers.get("content-disposition")).toMatch(/attachment; filename="ragd-backup-\d{8}T\d{6}Z\.tar"/);
    const file = join(root, "http.tar");
    writeFileSync(file, new Uint8Array(await res.arrayBuffer()));
    const dir = join(root, "from-http");
    expect(runCli(["restore", "--from", file, "--data-dir", dir]).code).toBe(0);
    // Truncated: refused, and the target stays empty.
    const cut = join(root, "cut.tar");
    writeFileSync(cut, readFileSync(file).subarray(0, 5000));
    const r = runCli(["restore", "--from", cut, "--data-dir", join(root, "from-cut")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/restore refused: .*(truncated|incomplete).*nothing was written/);
    expect(existsSync(join(root, "from-cut"))).toBe(false);
  }, 120_000);

  test("kill -9 of the server during a backup loses nothing; a backup without a server works", async () => {
    // A second pipeline with a large file, so that the archive outgrows the socket's buffers
    // and the server is still sending when it is killed.
    expect(runCli(["user", "set-tier", "--email", "b@example.com", "--tier", "pro", "--data-dir", dirA]).code).toBe(0);
    const big = (await server.http("/api/rag/pipelines", { method: "POST", json: { name: "Big" }, jar })).body.id;
    const bytes = new TextEncoder().encode(
      Array.from({ length: 120_000 }, (_, i) => `Line ${i} of the large manual.`).join("\n"),
    );
    const src = await server.http(`/api/rag/pipelines/${big}/sources`, {
      method: "POST",
      json: { type: "file", fileName: "manual.txt", fileSize: bytes.length },
      jar,
    });
    expect((await fetch(src.body.uploadUrl, { method: "PUT", body: bytes })).status).toBe(200);
    await waitFor(
      "the large source to be ready",
      async () => ((await server.http(`/api/rag/pipelines/${big}`, { jar })).body.status === "ready" ? true : null),
      60_000,
    );
    const control = readControlFile(dirA)!;
    const res = await fetch(`${control.url}/api/admin/backup`, {
      method: "POST",
      headers: { [CONTROL_HEADER]: control.token },
    });
    const reader = res.body!.getReader();
    await reader.read(); // the archive has begun: its snapshot is staged
    expect(readdirSync(join(dirA, ".backup-tmp")).length).toBe(1);
    server.proc.kill(9);
    await server.proc.exited;
    await reader.cancel().catch(() => {});

    const offline = join(root, "offline.tar");
    const b = runCli(["backup", "--to", offline, "--data-dir", dirA]);
    expect(b.code).toBe(0);
    server = await startBinary(dirA);
    expect(await answers(server)).toEqual(expected);
    expect(existsSync(join(dirA, ".backup-tmp"))).toBe(false);

    const dir = join(root, "from-offline");
    expect(runCli(["restore", "--from", offline, "--data-dir", dir]).code).toBe(0);
    const restored = await startBinary(dir);
    try {
      expect(await answers(restored)).toEqual(expected);
    } finally {
      restored.proc.kill();
      await restored.proc.exited;
    }
  }, 180_000);

  test("kill -9 during a restore leaves the target as it was, and a second restore works", async () => {
    const file = join(root, "one.tar");
    const dir = join(root, "killed");
    for (const delay of [5, 20, 60]) {
      const p = Bun.spawn([BINARY, "restore", "--from", file, "--data-dir", dir], {
        stdout: "ignore",
        stderr: "ignore",
      });
      await Bun.sleep(delay);
      p.kill(9);
      await p.exited;
      // Either the whole restore landed (it was quick) or nothing did.
      if (existsSync(dir) && readdirSync(dir).length) {
        expect(readdirSync(dir).sort()).toEqual(["lance", "ragd.db", "secret.key"]); // no uploaded files here
        rmSync(dir, { recursive: true });
      }
    }
    expect(runCli(["restore", "--from", file, "--data-dir", dir]).code).toBe(0);
    const restored = await startBinary(dir);
    try {
      expect(await answers(restored)).toEqual(expected);
    } finally {
      restored.proc.kill();
      await restored.proc.exited;
    }
  }, 120_000);

  test("ragd export and ragd import go through the running server; the copy answers the same", async () => {
    const file = join(root, "help.ragd-export.tar");
    const e = runCli(["export", "--pipeline", pipelineId, "--to", file, "--data-dir", dirA]);
    expect(e.stderr).toBe("");
    expect(e.code).toBe(0);
    const i = runCli(["import", "--from", file, "--email", "b@example.com", "--data-dir", dirA]);
    expect(i.stderr).toBe("");
    expect(i.code).toBe(0);
    expect(i.stdout).toContain('renamed: a pipeline called "Help" exists');
    expect(i.stdout).toContain("model ok: the built-in model is always available");
    const id = /imported pipeline (\S+)/.exec(i.stdout)![1]!;
    const copyKey = (await server.http(`/api/rag/pipelines/${id}/keys`, { method: "POST", json: { name: "c" }, jar }))
      .body.key;
    const original = key;
    try {
      key = copyKey;
      const got = await answers(server);
      const strip = (all: unknown[]) => (all as unknown[][][]).map((r) => r.map((x) => [x[0], x[1], x[3]]));
      expect(strip(got)).toEqual(strip(expected));
    } finally {
      key = original;
    }
    const bad = runCli(["import", "--from", file, "--email", "nobody@example.com", "--data-dir", dirA]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("no user with email nobody@example.com");
  }, 60_000);
});
