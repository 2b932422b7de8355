/**
 * Reading a large pipeline's sources over HTTP (in process, real SQLite file):
 * bytes and median milliseconds of the unpaged array, the pipeline object, a
 * page, the last page, a search and a status filter. Rows are stored through the
 * named queries (every tenth a text source of 3,000 characters), not ingested.
 *
 *   bun bench/source-list.ts [--sources 20000] [--runs 20]
 */
import { parseArgs } from "node:util";
import { insertDocument } from "../src/db/repo/documents";
import { newDocumentRow } from "../src/ingest/tasks/queue";
import { makeApp } from "../test/support/app";
import { percentile } from "./support";

const { values: args } = parseArgs({
  options: { sources: { type: "string", default: "20000" }, runs: { type: "string", default: "20" } },
});
const N = Number(args.sources);
const RUNS = Number(args.runs);

const t = await makeApp();
const cookie = await t.signup();
const p = await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "Large" } });
const id: string = p.body.id;

const start = Date.now();
await t.services.db.atomically(async (tx) => {
  for (let i = 0; i < N; i++) {
    const text = i % 10 === 0;
    const name = `source ${String(i).padStart(6, "0")}`;
    const row = newDocumentRow(
      {
        collectionId: id,
        type: text ? "text" : "url",
        name,
        url: text ? null : `https://example.com/docs/${i}`,
        contentLength: text ? 3000 : null,
      },
      start + i,
    );
    const status = i % 100 === 0 ? "failed" : i % 50 === 1 ? "processing" : "ready";
    await insertDocument(tx, { ...row, status }, text ? "x".repeat(3000) : undefined);
  }
});
console.log(`${N} sources stored in ${Date.now() - start} ms`);

const cases: [string, string][] = [
  ["unpaged array (kept for old clients)", `/api/rag/pipelines/${id}/sources`],
  ["pipeline object", `/api/rag/pipelines/${id}`],
  ["page 1 (20)", `/api/rag/pipelines/${id}/sources?page=1`],
  ["last page (100)", `/api/rag/pipelines/${id}/sources?page=${Math.ceil(N / 100)}&pageSize=100`],
  ["search q=0199", `/api/rag/pipelines/${id}/sources?q=0199`],
  ["status=failed, page 5", `/api/rag/pipelines/${id}/sources?status=failed&page=5`],
];
console.log("| request | bytes | p50 ms |\n|---|---|---|");
for (const [label, path] of cases) {
  const ms: number[] = [];
  let bytes = 0;
  const runs = label.startsWith("unpaged") ? Math.min(RUNS, 5) : RUNS;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = await t.call("GET", path, { cookie });
    ms.push(performance.now() - t0);
    bytes = r.text.length;
  }
  console.log(`| ${label} | ${bytes.toLocaleString("en")} | ${percentile(ms, 50).toFixed(1)} |`);
}
await t.close();
