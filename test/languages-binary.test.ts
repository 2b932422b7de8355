/**
 * Languages through the compiled binary (docs/languages.md): a word inside Chinese,
 * Japanese, Thai and Korean text, a German compound part and a Russian inflection find
 * their text in keyword, vector and hybrid mode on the default embedder; a fixed-language
 * pipeline and an auto one agree on one language's text; a pipeline made before
 * languages (its row as the migration leaves it: `legacy`) answers as before.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./support/app";
import { ensureBinary, type RunningBinary, signUp, startBinary } from "./support/binary";
import { waitFor } from "./support/ingest";
import { FINDS, OTHER, TEXTS } from "./support/languages";

let dataDir: string;
let server: RunningBinary;
const jar: { cookie?: string } = {};

beforeAll(async () => {
  await ensureBinary();
  dataDir = tempDir("ragd-langs-bin-");
  server = await startBinary(dataDir, { RAGD_WORKERS: "1" });
  expect(await signUp(server, "langs@example.com", jar)).toBe(201);
}, 120_000);

afterAll(() => {
  server?.proc.kill("SIGKILL");
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function pipeline(body: Record<string, unknown>, texts: Record<string, string>) {
  const r = await server.http("/api/rag/pipelines", { method: "POST", json: { name: "p", ...body }, jar });
  expect(r.status).toBe(201);
  const id = r.body.id as string;
  await fill(id, texts);
  const key = await server.http(`/api/rag/pipelines/${id}/keys`, { method: "POST", json: { name: "k" }, jar });
  return { id, key: key.body.key as string };
}

async function fill(id: string, texts: Record<string, string>) {
  for (const [name, content] of Object.entries(texts)) {
    const s = await server.http(`/api/rag/pipelines/${id}/sources`, {
      method: "POST",
      json: { type: "text", name, content },
      jar,
    });
    expect(s.status).toBe(201);
  }
  await waitFor("the sources to be ready", async () => {
    const p = await server.http(`/api/rag/pipelines/${id}`, { jar });
    return p.body.status === "ready" && p.body.sourceCount === Object.keys(texts).length;
  });
}

async function query(key: string, q: string, mode: string) {
  const r = await server.http("/api/rag/query", {
    method: "POST",
    json: { query: q, mode, topK: 3 },
    headers: { authorization: `Bearer ${key}` },
  });
  expect(r.status).toBe(200);
  return { name: (r.body.results[0]?.metadata.sourceName as string | undefined) ?? null, body: r.body };
}

describe("an auto pipeline on the default embedder", () => {
  let key: string;
  beforeAll(async () => {
    ({ key } = await pipeline({}, TEXTS));
  }, 60_000);

  for (const mode of ["keyword", "vector", "hybrid"])
    test(`${mode}: each word finds its text first`, async () => {
      const found: Record<string, string | null> = {};
      for (const [q] of FINDS) found[q] = (await query(key, q, mode)).name;
      expect(found).toEqual(Object.fromEntries(FINDS));
    });
});

test("a fixed-language pipeline and an auto one agree on Japanese text", async () => {
  const texts = { ja: TEXTS.ja, other: OTHER.ja };
  const [fixed, auto] = [await pipeline({ language: "ja" }, texts), await pipeline({}, texts)];
  for (const q of ["富士山", "日本の首都"]) {
    const [a, b] = [await query(fixed.key, q, "hybrid"), await query(auto.key, q, "hybrid")];
    expect(a.name).toBe("ja");
    expect(a.body.results).toEqual(
      b.body.results.map((r: any, i: number) => ({ ...r, metadata: a.body.results[i].metadata })),
    );
  }
});

test("a pipeline made before languages answers as before until it is re-indexed", async () => {
  const r = await server.http("/api/rag/pipelines", { method: "POST", json: { name: "old" }, jar });
  const id = r.body.id as string;
  // What the migration leaves on rows made before it: the setting and the index are legacy.
  server.proc.kill("SIGTERM");
  await server.proc.exited;
  const db = new Database(join(dataDir, "ragd.db"));
  db.run("UPDATE collections SET language = 'legacy', index_language = 'legacy' WHERE id = ?", [id]);
  db.close();
  server = await startBinary(dataDir, { RAGD_WORKERS: "1" });
  await fill(id, TEXTS);
  const key = (await server.http(`/api/rag/pipelines/${id}/keys`, { method: "POST", json: { name: "k" }, jar })).body
    .key as string;
  expect((await server.http(`/api/rag/pipelines/${id}`, { jar })).body.language).toBe("legacy");
  const before = await query(key, "长城", "keyword");
  expect(before.name).toBeNull();
  expect(before.body.queryLanguage).toBeUndefined();
  expect((await query(key, "Krankenversicherungsgesetz", "keyword")).name).toBe("de");
  await server.http(`/api/rag/pipelines/${id}`, { method: "PATCH", json: { language: "auto" }, jar });
  await server.http(`/api/rag/pipelines/${id}/reindex`, { method: "POST", json: {}, jar });
  await waitFor("the re-index to switch", async () => {
    const p = await server.http(`/api/rag/pipelines/${id}`, { jar });
    return p.body.indexLanguage === "auto" && p.body.status === "ready";
  });
  expect((await query(key, "长城", "keyword")).name).toBe("zh");
}, 60_000);
