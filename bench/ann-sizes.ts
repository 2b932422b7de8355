/**
 * ANN index kinds on one table, in process: build time, recall@10 against exact
 * search, p50/p95 of 200 sequential queries and throughput with 16 in flight.
 *
 *   ./node_modules/.bin/bun bench/ann-sizes.ts [rows=20000] [kinds=flat,ivfflat,hnsw]
 *
 * Rows are the topical corpus of bench/query-corpus.ts embedded by the built-in
 * embedder (384 dimensions). Kinds: `flat` (no index), `ivfflat[:partitions]` at
 * probe shares SHARES (default 0.2,0.5), `ivfpq[:partitions]` (refine ×10) and
 * `hnsw[:partitions]` (IVF_HNSW_SQ) at ef values EFS (default 40,80,160). Partitions
 * default to √rows for IVF kinds and 1 for HNSW; REFINE sets HNSW's refine factor. Each index replaces the previous.
 */
import { Index, type Table } from "@lancedb/lancedb";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embedBuiltin } from "../src/embed/builtin";
import { partitionsForRows } from "../src/vectors/ann";
import { openLance } from "../src/vectors/connection";
import { VectorStore, type ChunkRow } from "../src/vectors/store";
import { percentile, random } from "./support";
import { sentenceOf, topicsFor } from "./vocab";

const N = Number(process.argv[2] ?? 20_000);
const KINDS = (process.argv[3] ?? "flat,ivfflat,hnsw").split(",");
const SHARES = (process.env.SHARES ?? "0.2,0.5").split(",").map(Number);
const EFS = (process.env.EFS ?? "40,80,160").split(",").map(Number);
/** Refine factor for HNSW_SQ (its distances come from 8-bit codes); 1 re-ranks only the k hits. */
const HNSW_REFINE = Number(process.env.REFINE ?? 1);
/** Refine factor for IVF_FLAT (its distances are exact already: refine only adds a re-read). */
const FLAT_REFINE = Number(process.env.FLAT_REFINE ?? 1);
const DIM = 384;
const COLLECTION = "00000000-0000-4000-8000-0000000000a1";

// The topical corpus of bench/query-corpus.ts, sized by this bench's own row count.
const TOPICS = topicsFor(N);
const sentence = (rnd: () => number, n: number, topic = TOPICS[Math.floor(rnd() * TOPICS.length)]!) =>
  sentenceOf(rnd, n, topic);

type Hits = { document_id: string; chunk_index: number }[];

async function load(store: VectorStore, all: Float32Array, ids: string[]): Promise<void> {
  const rnd = random(1);
  for (let from = 0; from < N; from += 10_000) {
    const rows: ChunkRow[] = [];
    for (let i = from; i < Math.min(N, from + 10_000); i++) {
      const d = Math.floor(i / 10);
      const text = sentence(rnd, 20, TOPICS[d % TOPICS.length]);
      const vector = all.subarray(i * DIM, (i + 1) * DIM);
      vector.set(embedBuiltin(text));
      ids[i] = `d${d}:${i % 10}`;
      rows.push({ id: ids[i]!, documentId: `d${d}`, chunkIndex: i % 10, text, start: 0, end: text.length, vector });
    }
    await store.replaceDocuments(COLLECTION, 1, [], rows, { appendedAreNew: true });
  }
}

function exactTop(all: Float32Array, ids: string[], q: Float32Array): Set<string> {
  const scores = new Float32Array(N);
  for (let i = 0, o = 0; i < N; i++, o += DIM) {
    let s = 0;
    for (let j = 0; j < DIM; j++) s += all[o + j]! * q[j]!;
    scores[i] = s;
  }
  return new Set(
    [...scores.keys()]
      .sort((a, b) => scores[b]! - scores[a]!)
      .slice(0, 10)
      .map((i) => ids[i]!),
  );
}

async function measure(
  label: string,
  queries: Float32Array[],
  truth: Set<string>[],
  run: (q: Float32Array) => Promise<Hits>,
) {
  for (const q of queries.slice(0, 20)) await run(q);
  let found = 0;
  for (const [i, t] of truth.entries())
    found += (await run(queries[i]!)).filter((h) => t.has(`${h.document_id}:${h.chunk_index}`)).length;
  const lat: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    await run(q);
    lat.push(performance.now() - t0);
  }
  let n = 0;
  const until = performance.now() + 3000;
  const t1 = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async (_, c) => {
      for (let k = c; performance.now() < until; k += 16, n++) await run(queries[k % queries.length]!);
    }),
  );
  const qps = n / ((performance.now() - t1) / 1000);
  const recall = (found / (truth.length * 10)).toFixed(3);
  console.log(
    `${label}: recall@10 ${recall}, p50 ${percentile(lat, 50).toFixed(2)} ms, p95 ${percentile(lat, 95).toFixed(2)} ms, ${qps.toFixed(0)} q/s with 16 in flight`,
  );
}

function search(table: Table, q: Float32Array, tune: (v: ReturnType<Table["vectorSearch"]>) => typeof v) {
  const v = table.vectorSearch(q).distanceType("cosine").select(["document_id", "chunk_index", "_distance"]).limit(10);
  return tune(v).toArray() as Promise<Hits>;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ragd-bench-ann-"));
  const conn = await openLance(dir);
  const store = new VectorStore(conn, { annThreshold: Number.MAX_SAFE_INTEGER });
  try {
    const all = new Float32Array(N * DIM);
    const ids: string[] = new Array(N);
    await load(store, all, ids);
    await store.maintain();
    const table = await conn.openTable(VectorStore.tableName(COLLECTION, 1));
    const qrnd = random(7);
    const queries = Array.from({ length: 200 }, () => embedBuiltin(sentence(qrnd, 3 + Math.floor(qrnd() * 4))));
    const truth = queries.slice(0, 50).map((q) => exactTop(all, ids, q));
    console.log(`ann-sizes: ${N.toLocaleString()} rows × ${DIM}`);
    for (const kind of KINDS) {
      const [name, arg] = kind.split(":");
      if (name === "flat") {
        await measure("flat", queries, truth, (q) => search(table, q, (v) => v.bypassVectorIndex()));
        continue;
      }
      const hnsw = name === "hnsw";
      const partitions = Number(arg ?? (hnsw ? 1 : partitionsForRows(N)));
      const config = hnsw
        ? Index.hnswSq({ distanceType: "cosine", numPartitions: partitions })
        : name === "ivfpq"
          ? Index.ivfPq({ distanceType: "cosine", numPartitions: partitions, numSubVectors: DIM / 16 })
          : Index.ivfFlat({ distanceType: "cosine", numPartitions: partitions });
      const t0 = performance.now();
      await table.createIndex("vector", { config, replace: true });
      console.log(`${kind}: built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      if (hnsw)
        for (const ef of EFS)
          await measure(`${kind} ef ${ef}`, queries, truth, (q) =>
            search(table, q, (v) => v.nprobes(partitions).ef(ef).refineFactor(HNSW_REFINE)),
          );
      else
        for (const share of SHARES) {
          const probes = Math.max(1, Math.ceil(partitions * share));
          const refine = name === "ivfpq" ? 10 : FLAT_REFINE;
          await measure(`${kind} probing ${share * 100}%`, queries, truth, (q) =>
            search(table, q, (v) => v.nprobes(probes).refineFactor(refine)),
          );
        }
    }
    table.close();
  } finally {
    store.close();
    conn.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
