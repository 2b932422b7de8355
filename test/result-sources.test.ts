/**
 * The sources of a page of search hits (src/db/repo/result-sources.ts), on a real
 * SQLite file: the columns a result shows, any number of ids in one statement, and a
 * plan that looks the ids up instead of walking the documents.
 */
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { openDb } from "../src/db/client";
import { findResultSources, SOURCES_OF_HITS } from "../src/db/repo/result-sources";
import { tempDir } from "./support/app";

const dir = tempDir("ragd-result-sources-");
const db = openDb(dir);
// Documents alone: their collection and user rows say nothing about this lookup.
db.$client.exec("PRAGMA foreign_keys = OFF");
afterAll(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = db.$client.prepare(
  `INSERT INTO documents (id, collection_id, type, name, url, file_name, external_id, metadata, status, created_at, updated_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'ready', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`,
);
for (let i = 0; i < 3000; i++)
  insert.run(`doc-${i}`, i % 2 ? "c-odd" : "c-even", "text", `name ${i}`, null, null, null, "{}");
insert.run("doc-url", "c-even", "url", "a page", "https://example.com/a", null, "ext-1", '{"team":"hr"}');
insert.run("doc-'quote", "c-even", "file", "a file", null, "a.pdf", null, "{}");

test("returns the result columns of each id asked for, and nothing for unknown ids", async () => {
  const found = await findResultSources(db, ["doc-url", "doc-'quote", "doc-7", "gone"]);
  const byId = Object.fromEntries(found.map((d) => [d.id, d]));
  expect(Object.keys(byId).sort()).toEqual(["doc-'quote", "doc-7", "doc-url"]);
  expect(byId["doc-url"]).toEqual({
    id: "doc-url",
    collectionId: "c-even",
    type: "url",
    name: "a page",
    url: "https://example.com/a",
    fileName: null,
    externalId: "ext-1",
    metadata: '{"team":"hr"}',
    status: "ready",
    updatedAt: "2026-01-01T00:00:00Z",
    indexedAt: null,
  });
  expect(byId["doc-'quote"]!.fileName).toBe("a.pdf");
  expect(byId["doc-7"]!.collectionId).toBe("c-odd");
  expect(await findResultSources(db, [])).toEqual([]);
});

test("a wide page of hits (400 ids, as a reranker's pool can be) finds every one", async () => {
  const ids = Array.from({ length: 400 }, (_, i) => `doc-${i * 7}`);
  expect(new Set((await findResultSources(db, ids)).map((d) => d.id))).toEqual(new Set(ids));
});

test("the ids are looked up by key, not found by walking a collection's documents", async () => {
  // The statement's own text, as the module runs it: a plan that scans documents costs
  // milliseconds per query at a few thousand documents.
  await findResultSources(db, ["doc-1"]);
  const plan = db.$client
    .query(`EXPLAIN QUERY PLAN ${SOURCES_OF_HITS}`)
    .all({ ids: "[]" })
    .map((r) => (r as { detail: string }).detail);
  expect(plan.some((d) => /SEARCH documents USING .*\(id=\?\)/.test(d))).toBe(true);
  expect(plan.some((d) => /SCAN documents/.test(d))).toBe(false);
});
