/**
 * ANN index kinds on one table, in process: build time, recall@10 against exact
 * search (by id, and with ties counted as ann-benchmarks counts them: bench/recall.ts),
 * p50/p95 of 200 sequential queries and throughput with 16 in flight.
 *
 *   ./node_modules/.bin/bun bench/ann-sizes.ts [rows=20000] [kinds=flat,ivfflat,hnsw] [--dir DIR [--dense]]
 *
 * Rows are the topical corpus of bench/query-corpus.ts embedded by the built-in
 * embedder (384 dimensions). Kinds: `flat` (no index), `serving` (the table's present
 * index, probed as ragd probes it: ann.ts, and with SWEEP=1 at SHARES × REFINES too), `ivfflat[:partitions]` at probe shares
 * SHARES (default 0.2,0.5), `ivfpq[:partitions[:sub-vectors]]` and `ivfrq[:partitions]`
 * at refine factors REFINES (default 10), and `hnsw[:partitions]` (IVF_HNSW_SQ) at ef
 * values EFS (default 40,80,160), with more than one partition at probe shares SHARES
 * too. Partitions default to √rows for IVF kinds and 1 for HNSW; REFINE sets HNSW's
 * refine factor. An IVF kind may add `:s<n>` (k-means sample rate, vectors per partition;
 * LanceDB's default 256) and `:i<n>` (k-means iterations; default 50). `ties` prints how
 * near the exact neighbours of the recall queries are to one another and to the 10th
 * (bench/ties.ts). Each index replaces the previous and is named
 * as ann.ts names its kind (`vector_ivfpq_<rows>`, …), so the last one built can serve.
 *
 * With `--dir DIR` the table is the one bench/query-http.ts kept in DIR (its `--dir`),
 * with its vectors for exact search; `--dense` when that corpus is `dense`. The table
 * stays; bench/query-http.ts rebuilds the index ann.ts picks if the last one differs.
 *
 * On the built-in vectors (100,000 rows, 100 topics, load 4–10) the probe share an IVF
 * search needs depends on how its partitions fall against the topics: 50% of 64 found
 * 0.986, of 16 0.868; 40% of 100 0.974, of 1,000 0.946; of 316 (√rows, as ann.ts) 15%
 * found 0.680 and 60% 0.966. Ties count for at most 0.026 (`ties`). Graphs all searched
 * keep it: `hnsw:16` with SHARES=1, REFINE=2 gave 0.976 at ef 50 (p50 8.3 ms) and, at
 * 300,000 rows, 0.972 at ef 100 (p50 19 ms), built in 272 and 749 s
 * (docs/notes/2026-12-06-search-and-ann-indexes.md).
 */
import { Index, type Table } from "@lancedb/lancedb";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { embedBuiltin } from "../src/embed/builtin";
import { partitionsForRows, vectorIndexes } from "../src/vectors/ann";
import { probesForRows } from "../src/vectors/ann-probes";
import { openLance } from "../src/vectors/connection";
import { VectorStore } from "../src/vectors/store";
import { denseSpace } from "./dense";
import { dirArg, fillTopical, flatTopK, restore } from "./kept-corpus";
import { exactDistances, RecallTally, recallHits } from "./recall";
import { percentile, random } from "./support";
import { analyseTies } from "./ties";
import { sentenceOf, topicsFor } from "./vocab";

const N = Number(process.argv[2] ?? 20_000);
const KINDS = (process.argv[3] ?? "flat,ivfflat,hnsw").split(",");
const SHARES = (process.env.SHARES ?? "0.2,0.5").split(",").map(Number);
/** Refine factors for the quantised IVF kinds (PQ, RQ). */
const REFINES = (process.env.REFINES ?? "10").split(",").map(Number);
const KEPT = dirArg();
const DENSE = process.argv.includes("--dense");
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
/** The exact top 10 of each recall query (LanceDB's flat scan) and exact distances by row id. */
type Truth = { sets: Set<string>[]; distance: (q: Float32Array) => (id: string) => number };

async function measure(label: string, queries: Float32Array[], truth: Truth, run: (q: Float32Array) => Promise<Hits>) {
  for (const q of queries.slice(0, 20)) await run(q);
  const tally = new RecallTally(10);
  for (const [i, t] of truth.sets.entries()) {
    const returned = (await run(queries[i]!)).map((h) => `${h.document_id}:${h.chunk_index}`);
    tally.add(recallHits(returned, t, truth.distance(queries[i]!), 10));
  }
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
  console.log(
    `${label}: recall@10 ${tally.format()}, p50 ${percentile(lat, 50).toFixed(2)} ms, p95 ${percentile(lat, 95).toFixed(2)} ms, ${qps.toFixed(0)} q/s with 16 in flight`,
  );
}

function search(table: Table, q: Float32Array, tune: (v: ReturnType<Table["vectorSearch"]>) => typeof v) {
  const v = table.vectorSearch(q).distanceType("cosine").select(["document_id", "chunk_index", "_distance"]).limit(10);
  return tune(v).toArray() as Promise<Hits>;
}

type Tune = (v: ReturnType<Table["vectorSearch"]>) => ReturnType<Table["vectorSearch"]>;

/** An index kind of the command line: its LanceDB config, ann.ts-style name, and the probe settings to measure. */
function kindOf(kind: string): { config: Index; name: string; tunes: [string, Tune][] } {
  // `s<n>` and `i<n>` anywhere after the name set the IVF training's sample rate and k-means iterations.
  const parts = kind.split(":");
  const training = (p: string) => /^[si]\d+$/.test(p);
  const [name, arg, sub] = parts.filter((p) => !training(p));
  const train = Object.fromEntries(
    parts.filter(training).map((p) => [p[0] === "s" ? "sampleRate" : "maxIterations", Number(p.slice(1))]),
  );
  const hnsw = name === "hnsw";
  const partitions = Number(arg ?? (hnsw ? 1 : partitionsForRows(N)));
  const probing = (share: number) => Math.max(1, Math.ceil(partitions * share));
  const quantised = (label: string): [string, Tune][] =>
    SHARES.flatMap((share) =>
      REFINES.map((r): [string, Tune] => [
        `${label} probing ${share * 100}% refine ${r}`,
        (v) => v.nprobes(probing(share)).refineFactor(r),
      ]),
    );
  if (hnsw)
    return {
      config: Index.hnswSq({ distanceType: "cosine", numPartitions: partitions }),
      name: "hnswsq",
      // One graph: probe it; a graph per partition: probe SHARES of them, like IVF.
      tunes: (partitions > 1 ? SHARES : [1]).flatMap((share) =>
        EFS.map((ef): [string, Tune] => [
          `${kind}${partitions > 1 ? ` probing ${share * 100}%` : ""} ef ${ef}`,
          (v) => v.nprobes(probing(share)).ef(ef).refineFactor(HNSW_REFINE),
        ]),
      ),
    };
  if (name === "ivfpq") {
    const numSubVectors = Number(sub ?? DIM / 16);
    return {
      config: Index.ivfPq({ distanceType: "cosine", numPartitions: partitions, numSubVectors, ...train }),
      name: "ivfpq",
      tunes: quantised(kind),
    };
  }
  if (name === "ivfrq")
    return {
      config: Index.ivfRq({ distanceType: "cosine", numPartitions: partitions }),
      name: "ivfrq",
      tunes: quantised(kind),
    };
  return {
    config: Index.ivfFlat({ distanceType: "cosine", numPartitions: partitions, ...train }),
    name: "ivfflat",
    tunes: SHARES.map((share) => [
      `${kind} probing ${share * 100}%`,
      (v) => v.nprobes(probing(share)).refineFactor(FLAT_REFINE),
    ]),
  };
}

/** The table, with every vector and row id: kept by bench/query-http.ts in KEPT, or loaded here. */
async function openCorpus(dir: string, vectorStore: VectorStore, all: Float32Array, ids: string[]): Promise<string> {
  if (!KEPT) {
    await fillTopical(vectorStore, COLLECTION, N, all, ids);
    await vectorStore.upkeep();
    return VectorStore.tableName(COLLECTION, 1);
  }
  const state = await restore(KEPT, all, ids);
  if (!state) throw new Error(`${dir} holds no corpus kept by bench/query-http.ts`);
  return VectorStore.tableName(state.pipelineId, 1);
}

/** Measures each kind on the table, replacing its vector index by each in turn. */
async function runKinds(table: Table, queries: Float32Array[], truth: Truth): Promise<void> {
  for (const kind of KINDS) {
    if (kind === "ties") continue;
    if (kind === "flat") {
      await measure("flat", queries, truth, (q) => search(table, q, (v) => v.bypassVectorIndex()));
      continue;
    }
    if (kind === "serving") {
      const serving = vectorIndexes(await table.listIndices())[0];
      if (!serving) throw new Error("the table has no vector index");
      const p = probesForRows(serving.trainedRows, serving.indexType);
      await measure(`serving ${serving.name} (${JSON.stringify(p)})`, queries, truth, (q) =>
        search(table, q, (v) => {
          let t = v.nprobes(p.minimum);
          if (p.refine > 1) t = t.refineFactor(p.refine);
          return p.ef ? t.ef(Math.max(p.ef, 10 * p.refine)) : t;
        }),
      );
      // SWEEP=1: also at each of SHARES × REFINES, without rebuilding the index.
      if (process.env.SWEEP)
        for (const share of SHARES)
          for (const r of REFINES) {
            const probes = Math.max(1, Math.ceil(p.maximum * share));
            await measure(`serving probing ${share * 100}% refine ${r}`, queries, truth, (q) =>
              search(table, q, (v) => v.nprobes(probes).refineFactor(r)),
            );
          }
      continue;
    }
    const { config, name, tunes } = kindOf(kind);
    for (const old of vectorIndexes(await table.listIndices())) await table.dropIndex(old.name);
    const t0 = performance.now();
    await table.createIndex("vector", { config, name: `vector_${name}_${N}`, replace: true });
    console.log(
      `${kind}: built in ${((performance.now() - t0) / 1000).toFixed(1)} s; load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(" ")}`,
    );
    for (const [label, tune] of tunes) await measure(label, queries, truth, (q) => search(table, q, tune));
  }
}

async function main(): Promise<void> {
  const dir = KEPT ?? mkdtempSync(join(tmpdir(), "ragd-bench-ann-"));
  const conn = await openLance(dir);
  const vectorStore = new VectorStore(conn, { annThreshold: Number.MAX_SAFE_INTEGER });
  try {
    const all = new Float32Array(N * DIM);
    const ids: string[] = new Array(N);
    const table = await conn.openTable(await openCorpus(dir, vectorStore, all, ids));
    const space = DENSE ? denseSpace(DIM, TOPICS.length) : null;
    const qrnd = random(7);
    const queries = Array.from({ length: 200 }, () => {
      const text = sentence(qrnd, 3 + Math.floor(qrnd() * 4));
      return space ? space.query(text) : embedBuiltin(text);
    });
    const truth: Truth = { sets: [], distance: exactDistances(all, ids, DIM) };
    for (const q of queries.slice(0, 50)) truth.sets.push(await flatTopK(table, q, 10));
    console.log(
      `ann-sizes: ${N.toLocaleString()} rows × ${DIM}; load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(" ")}`,
    );
    if (KINDS.includes("ties")) {
      // Row i is chunk i % 10 of document ⌊i / 10⌋, whose topic is its number modulo the topics (both corpora).
      const topicOf = (row: number) => Math.floor(row / 10) % TOPICS.length;
      await analyseTies(table, all, ids, DIM, queries.slice(0, 50), topicOf);
    }
    await runKinds(table, queries, truth);
    table.close();
  } finally {
    vectorStore.close();
    conn.close();
    if (!KEPT) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
