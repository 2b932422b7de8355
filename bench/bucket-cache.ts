/**
 * What the bucket cache (src/vectors/bucket-cache.ts) buys a query, in process: the same
 * chunks in a table on a data directory and in a table on an S3-compatible store (Ceph RGW,
 * test/support/rgw.ts), searched by one client, one query at a time:
 *
 *   bun bench/bucket-cache.ts [--docs 1500] [--queries 60] [--datasets DIR]
 *
 * For each of vector, keyword and hybrid search: the p50 and p95 on the data directory,
 * on the bucket without the cache, and on the bucket through the cache after warm-up; the
 * cold first query (a new connection and an empty cache directory: every file read from
 * the store), and the first query of a new connection on the filled directory (a restart).
 * The chunks are SciFact abstracts (or generated prose without them) cut in pieces of about
 * 600 characters, with 256-dimension vectors made from their words' hashes, so that a
 * query's neighbours share its words.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ObjectStorage } from "../src/config-storage";
import { type BucketCache, startBucketCache } from "../src/vectors/bucket-cache";
import { openLance } from "../src/vectors/connection";
import type { SearchMode } from "../src/vectors/search";
import { type ChunkRow, VectorStore } from "../src/vectors/store";
import { startRgw } from "../test/support/rgw";
import { DATASETS, loadCorpus, percentile } from "./support";

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const DOCS = Number(arg("docs", "1500"));
const QUERIES = Number(arg("queries", "60"));
const DIM = 256;
const MODES: SearchMode[] = ["vector", "keyword", "hybrid"];

function wordVector(text: string): Float32Array {
  const v = new Float32Array(DIM);
  for (const word of text.toLowerCase().match(/[a-z]{3,}/g) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    for (let k = 0; k < 8; k++) {
      h = Math.imul(h ^ (h >>> 15), 2246822507);
      v[(h >>> 0) % DIM]! += h & 1 ? 1 : -1;
    }
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

function rowsOf(id: string, text: string): ChunkRow[] {
  const pieces = text.match(/[\s\S]{1,600}(\s|$)/g) ?? [text];
  return pieces.map((piece, i) => ({
    id: `${id}:${i}`,
    documentId: id,
    chunkIndex: i,
    text: piece,
    start: 0,
    end: piece.length,
    vector: wordVector(piece),
  }));
}

const corpus = loadCorpus(DOCS, arg("datasets", DATASETS));
const queries = Array.from({ length: QUERIES }, (_, i) => corpus[(i * 7919) % corpus.length]!.title);
const collection = crypto.randomUUID();

async function fill(vectorStore: VectorStore): Promise<number> {
  let rows = 0;
  for (let i = 0; i < corpus.length; i += 250) {
    const docs = corpus.slice(i, i + 250);
    const batch = docs.flatMap((d) => rowsOf(d.id, `${d.title}. ${d.text}`));
    rows += batch.length;
    await vectorStore.replaceDocuments(
      collection,
      1,
      docs.map((d) => d.id),
      batch,
    );
  }
  await vectorStore.upkeep();
  return rows;
}

const ask = (vectorStore: VectorStore, mode: SearchMode, text: string) =>
  vectorStore.search(collection, 1, { mode, text, vector: wordVector(text), topK: 10 });

async function timed(vectorStore: VectorStore, mode: SearchMode, text: string): Promise<number> {
  const t = performance.now();
  await ask(vectorStore, mode, text);
  return performance.now() - t;
}

/** p50 and p95 (ms) per mode, after `warm` queries of each that are not timed. */
async function latencies(vectorStore: VectorStore, warm: number): Promise<Record<string, [number, number]>> {
  const out: Record<string, [number, number]> = {};
  for (const mode of MODES) {
    for (const q of queries.slice(0, warm)) await ask(vectorStore, mode, q);
    const ms: number[] = [];
    for (const q of queries) ms.push(await timed(vectorStore, mode, q));
    out[mode] = [percentile(ms, 50), percentile(ms, 95)];
  }
  return out;
}

async function withStore<T>(
  where: string | ObjectStorage,
  cache: BucketCache | null,
  fn: (s: VectorStore) => Promise<T>,
) {
  const vectorStore = new VectorStore(await openLance(where, undefined, cache));
  try {
    return await fn(vectorStore);
  } finally {
    vectorStore.close();
  }
}

const rgw = await startRgw();
const dataDir = mkdtempSync(join(tmpdir(), "ragd-bench-bucket-cache-"));
const cacheDir = join(dataDir, "cache", "bucket");
const bucket: ObjectStorage = { ...rgw.storage, prefix: "bench" };
try {
  const rows = await withStore(dataDir, null, fill);
  await withStore(bucket, null, fill);
  console.log(`${corpus.length} documents, ${rows} chunks; ${QUERIES} queries per mode, one client`);
  const local = await withStore(dataDir, null, (s) => latencies(s, 10));
  const plain = await withStore(bucket, null, (s) => latencies(s, 5));
  const cache = startBucketCache(bucket, { dir: cacheDir, maxBytes: 2048 * 2 ** 20 });
  const cold = await withStore(bucket, cache, async (s) => {
    const first = await timed(s, "hybrid", queries[0]!);
    return { first, warm: await latencies(s, 10) };
  });
  cache.stop();
  const again = startBucketCache(bucket, { dir: cacheDir, maxBytes: 2048 * 2 ** 20 });
  const restart = await withStore(bucket, again, (s) => timed(s, "hybrid", queries[1]!));
  const counters = again.counters;
  again.stop();

  const fmt = ([p50, p95]: [number, number]) => `${p50.toFixed(1)} / ${p95.toFixed(1)}`.padStart(15);
  console.log("p50 / p95 ms        data dir   bucket, no cache   bucket, cache   cache ÷ data dir (p50)");
  for (const mode of MODES)
    console.log(
      `${mode.padEnd(10)} ${fmt(local[mode]!)} ${fmt(plain[mode]!)}    ${fmt(cold.warm[mode]!)}     ${(cold.warm[mode]![0] / local[mode]![0]).toFixed(2)}×`,
    );
  console.log(`cold first query (hybrid, empty cache, new connection): ${cold.first.toFixed(1)} ms`);
  console.log(
    `first query after a restart (hybrid, filled cache): ${restart.toFixed(1)} ms; ${JSON.stringify(counters)}`,
  );
} finally {
  await rgw.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
