/**
 * Vector-mode query latency and recall of VectorStore.search, in process.
 *
 *   ./node_modules/.bin/bun bench/query-latency.ts [rows=10000] [uniform|clustered]
 *
 * Writes `rows` random 384-d unit vectors (one chunk per document, short texts) in
 * batches, runs upkeep() (which builds the ANN index from 10,000 rows), then
 * times 200 random queries (topK 10) and measures recall@10 of 50 more against
 * brute-force search in JS.
 *
 * `uniform` (the default) draws directions uniformly: in 384 dimensions every
 * point is then almost equally far from every other, which no ANN index can
 * partition, so its recall is a worst case. `clustered` draws points around
 * rows/100 random centres (cosine ≈ 0.5 within a cluster), closer to how real
 * embeddings of related text behave; queries come from the same distribution.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLance } from "../src/vectors/connection";
import { VectorStore, type ChunkRow } from "../src/vectors/store";
import { random } from "./support";

const N = Number(process.argv[2] ?? 10_000);
const SHAPE = process.argv[3] === "clustered" ? "clustered" : "uniform";
const DIM = 384;
const BATCH = 10_000;
const COLLECTION = "00000000-0000-4000-8000-000000000001";

type Draw = (out?: Float32Array) => Float32Array;

function gaussian(rnd: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
}

/** Cluster centres, shared by the stored vectors and the queries. */
const CENTRES = ((rnd) =>
  Array.from({ length: Math.max(10, Math.round(N / 100)) }, () =>
    Float32Array.from({ length: DIM }, () => gaussian(rnd)),
  ))(random(0));

/** A generator of unit vectors of the chosen shape. */
function vectors(seed: number): Draw {
  const rnd = random(seed);
  return (out = new Float32Array(DIM)) => {
    const centre = SHAPE === "clustered" ? CENTRES[Math.floor(rnd() * CENTRES.length)]! : null;
    let norm = 0;
    for (let i = 0; i < DIM; i++) {
      out[i] = (centre?.[i] ?? 0) + gaussian(rnd);
      norm += out[i]! * out[i]!;
    }
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < DIM; i++) out[i]! *= inv;
    return out;
  };
}

/** Ids of the k stored vectors with the highest dot product. */
function exactTopK(all: Float32Array, q: Float32Array, k: number): string[] {
  const best: { i: number; s: number }[] = [];
  for (let i = 0, off = 0; off < all.length; i++, off += DIM) {
    let s = 0;
    for (let j = 0; j < DIM; j++) s += all[off + j]! * q[j]!;
    if (best.length < k || s > best[best.length - 1]!.s) {
      best.push({ i, s });
      best.sort((a, b) => b.s - a.s);
      if (best.length > k) best.pop();
    }
  }
  return best.map((b) => `doc${b.i}`);
}

async function load(vectorStore: VectorStore, all: Float32Array): Promise<number> {
  const draw = vectors(1);
  const started = performance.now();
  for (let from = 0; from < N; from += BATCH) {
    const rows: ChunkRow[] = [];
    for (let i = from; i < Math.min(N, from + BATCH); i++) {
      const vector = draw(all.subarray(i * DIM, (i + 1) * DIM));
      rows.push({
        id: `doc${i}:0`,
        documentId: `doc${i}`,
        chunkIndex: 0,
        text: `chunk ${i} about topic ${i % 97}`,
        start: 0,
        end: 24,
        vector,
      });
    }
    await vectorStore.replaceDocuments(
      COLLECTION,
      1,
      rows.map((r) => r.documentId),
      rows,
    );
  }
  return performance.now() - started;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ragd-bench-"));
  const conn = await openLance(dir);
  const vectorStore = new VectorStore(conn, { log: (msg, f) => console.error(msg, JSON.stringify(f ?? {})) });
  try {
    const all = new Float32Array(N * DIM);
    const loadMs = await load(vectorStore, all);
    const t0 = performance.now();
    await vectorStore.upkeep();
    const maintainMs = performance.now() - t0;
    const query = vectors(2);
    const ask = (vector: Float32Array) =>
      vectorStore.search(COLLECTION, 1, { mode: "vector", text: "", vector, topK: 10 });
    for (let i = 0; i < 10; i++) await ask(query()); // warm caches
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const q = query();
      const s = performance.now();
      await ask(q);
      times.push(performance.now() - s);
    }
    times.sort((a, b) => a - b);
    let found = 0;
    for (let i = 0; i < 50; i++) {
      const q = query();
      const truth = new Set(exactTopK(all, q, 10));
      found += (await ask(q)).filter((h) => truth.has(h.documentId)).length;
    }
    const f = (ms: number) => `${ms.toFixed(2)} ms`;
    console.table({
      rows: N,
      dim: DIM,
      data: SHAPE,
      "load (s)": (loadMs / 1000).toFixed(1),
      "maintain (s)": (maintainMs / 1000).toFixed(1),
      p50: f(percentile(times, 50)),
      p95: f(percentile(times, 95)),
      p99: f(percentile(times, 99)),
      "recall@10": (found / 500).toFixed(3),
    });
  } finally {
    vectorStore.close();
    conn.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
