/**
 * Filtered query latency, in process on one LanceDB table through VectorStore.search
 * (the path the query endpoint takes after embedding):
 *
 *   ./node_modules/.bin/bun bench/filter.ts [chunks=100000] [dim=384]
 *
 * Writes `chunks` chunks, ten per document; each document carries metadata
 * `{bucket: "b<d % 100>", tenth: "t<d % 10>", year: 2000 + d % 10, tags: [...]}`.
 * maintain() then builds the indexes production builds (full-text, and ANN from
 * 10,000 rows). Each mode (vector, keyword, hybrid) is timed without a filter and
 * with filters matching 1 %, 10 % and 100 % of the chunks, compiled by the real
 * filter compiler; p50 and p95 of 60 queries each, topK 10.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Metadata } from "../src/core/metadata";
import { compileMetadataFilter } from "../src/retrieval/filter";
import { openLance } from "../src/vectors/connection";
import { encodeChunkMetadata } from "../src/vectors/meta-index";
import { VectorStore, type ChunkRow, type SearchMode } from "../src/vectors/store";
import { percentile, random } from "./support";

const N = Number(process.argv[2] ?? 100_000);
const DIM = Number(process.argv[3] ?? 384);
const PER_DOC = 10;
const BATCH = 10_000;
const QUERIES = 60;
const COLLECTION = "00000000-0000-4000-8000-0000000000f1";
const WORDS =
  "harbour tide ledger beacon anchor quarry meadow lantern orchard glacier canyon ember willow falcon prism".split(" ");

const FILTERS: [string, unknown][] = [
  ["none", undefined],
  ["1 % (bucket = b7)", { bucket: "b7" }],
  ["10 % (tenth = t3)", { tenth: "t3" }],
  ["10 % (year >= 2009)", { year: { $gte: 2009 } }],
  ["10 % (tags any of)", { tags: { $in: ["k3"] } }],
  ["100 % (sourceType)", { sourceType: "text" }],
];

const metadataOf = (d: number): Metadata => ({
  bucket: `b${d % 100}`,
  tenth: `t${d % 10}`,
  year: 2000 + (d % 10),
  tags: [`k${d % 10}`, "all"],
});

function unitVector(rnd: () => number): Float32Array {
  const v = Float32Array.from({ length: DIM }, () => rnd() - 0.5);
  const inv = 1 / Math.hypot(...v);
  return v.map((x) => x * inv);
}

async function load(store: VectorStore): Promise<void> {
  const rnd = random(1);
  for (let from = 0; from < N; from += BATCH) {
    const rows: ChunkRow[] = [];
    for (let i = from; i < Math.min(N, from + BATCH); i++) {
      const d = Math.floor(i / PER_DOC);
      const text = Array.from({ length: 12 }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" ");
      rows.push({
        id: `doc${d}:${i % PER_DOC}`,
        documentId: `doc${d}`,
        chunkIndex: i % PER_DOC,
        text,
        start: 0,
        end: text.length,
        vector: unitVector(rnd),
      });
    }
    await store.replaceDocuments(COLLECTION, 1, [...new Set(rows.map((r) => r.documentId))], rows);
  }
}

async function time(
  store: VectorStore,
  mode: SearchMode,
  where: string | undefined,
): Promise<{ p50: number; p95: number; hits: number }> {
  const rnd = random(7);
  const ask = () => {
    const text = `${WORDS[Math.floor(rnd() * WORDS.length)]} ${WORDS[Math.floor(rnd() * WORDS.length)]}`;
    return store.search(COLLECTION, 1, { mode, text, vector: unitVector(rnd), topK: 10, where });
  };
  for (let i = 0; i < 5; i++) await ask();
  const ms: number[] = [];
  let hits = 0;
  for (let i = 0; i < QUERIES; i++) {
    const s = performance.now();
    hits += (await ask()).length;
    ms.push(performance.now() - s);
  }
  return { p50: percentile(ms, 50), p95: percentile(ms, 95), hits: hits / QUERIES };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ragd-bench-filter-"));
  const conn = await openLance(dir);
  const store = new VectorStore(conn, {
    log: (msg, f) => console.error(`  ${msg}`, JSON.stringify(f ?? {})),
    metadataOf: (_collection, ids) =>
      new Map(
        ids.map((id) => [
          id,
          encodeChunkMetadata(metadataOf(Number(id.slice(3))), { sourceType: "text", externalId: null }),
        ]),
      ),
  });
  try {
    const t0 = performance.now();
    await load(store);
    await store.maintain();
    console.error(`loaded and indexed ${N} chunks (${DIM}-d) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const table: Record<string, Record<string, string>> = {};
    for (const [label, filter] of FILTERS) {
      const where = compileMetadataFilter(filter) ?? undefined;
      const row: Record<string, string> = {};
      for (const mode of ["vector", "keyword", "hybrid"] as const) {
        const r = await time(store, mode, where);
        row[mode] = `${r.p50.toFixed(1)} / ${r.p95.toFixed(1)} ms (${r.hits.toFixed(1)} hits)`;
      }
      table[label] = row;
    }
    console.log(`p50 / p95 of ${QUERIES} queries, topK 10, ${N} chunks of ${DIM} dimensions`);
    console.table(table);
  } finally {
    store.close();
    conn.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
