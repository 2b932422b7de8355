/**
 * Lexical candidates for the built-in vectors, in process: recall@10 against exact
 * search and p50 of the ANN index alone, of the full-text index's top M rows alone
 * (re-scored by exact cosine on their stored vectors), and of their union.
 *
 *   ./node_modules/.bin/bun bench/lexical.ts [rows=100000] [--dir DIR] [--kind ivfpq|ivfflat]
 *
 * M values in MS (default 100,300,1000), probe shares in SHARES (default 0.05,0.15), the
 * ANN's re-rank factor in REFINE (default 100), recall over the first TRUTH queries (50).
 * The table is the topical corpus of bench/query-corpus.ts (built-in vectors); with
 * `--dir` it is kept there between runs (a table bench/query-http.ts kept is read as is).
 *
 * At 1M rows (`bench/lexical.ts 1000000 --dir DIR` on the table bench/query-http.ts kept,
 * load average 6–10 from other work) probing 15% found recall@10 0.734 alone, 0.960 with
 * the full-text index's 300 best rows; docs/notes/2026-12-06-search-and-ann-indexes.md has the table.
 */
import { Index, type Table } from "@lancedb/lancedb";
import { existsSync, mkdirSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { embedBuiltin } from "../src/embed/builtin";
import { annIndexFor, partitionsForRows, vectorIndexes } from "../src/vectors/ann";
import { openLance } from "../src/vectors/connection";
import { lexicalCandidates } from "../src/vectors/lexical-candidates";
import { VectorStore } from "../src/vectors/store";
import { dirArg, exactAnswers, fillTopical, flatTopK, restore } from "./kept-corpus";
import { exactDistances, RecallTally, recallHits, unionTop10 } from "./recall";
import { percentile, random } from "./support";
import { sentenceOf, topicsFor } from "./vocab";

const N = Number(process.argv[2] ?? 100_000);
const KEPT = dirArg();
const KIND = process.argv.includes("--kind") ? process.argv[process.argv.indexOf("--kind") + 1] : "ivfpq";
const MS = (process.env.MS ?? "100,300,1000").split(",").map(Number);
const SHARES = (process.env.SHARES ?? "0.05,0.15").split(",").map(Number);
const REFINE = Number(process.env.REFINE ?? 100);
/** Queries whose recall is measured against exact search (of the 200 timed). */
const TRUTH = Number(process.env.TRUTH ?? 50);
const DIM = 384;
const COLLECTION = "00000000-0000-4000-8000-0000000000b2";
const TOPICS = topicsFor(N);
const sentence = (rnd: () => number, n: number, topic = TOPICS[Math.floor(rnd() * TOPICS.length)]!) =>
  sentenceOf(rnd, n, topic);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

type Hit = { id: string; score: number };

async function ann(table: Table, q: Float32Array, share: number, partitions: number): Promise<Hit[]> {
  let v = table
    .vectorSearch(q)
    .distanceType("cosine")
    .select(["document_id", "chunk_index", "_distance"])
    .limit(10)
    .nprobes(Math.max(1, Math.ceil(partitions * share)));
  if (KIND === "ivfpq") v = v.refineFactor(REFINE);
  const rows = (await v.toArray()) as { document_id: string; chunk_index: number; _distance: number }[];
  return rows.map((r) => ({ id: `${r.document_id}:${r.chunk_index}`, score: 1 - r._distance }));
}

async function fts(table: Table, text: string, q: Float32Array, m: number): Promise<Hit[]> {
  return (await lexicalCandidates(table, { text }, q, m, 10, null)).map((h) => ({ id: h.id, score: h.score }));
}

async function measure(
  label: string,
  texts: string[],
  qs: Float32Array[],
  truth: Set<string>[],
  dist: (q: Float32Array) => (id: string) => number,
  run: (i: number) => Promise<string[]>,
) {
  const tally = new RecallTally(10);
  const lat: number[] = [];
  for (let i = 0; i < texts.length; i++) {
    const t0 = performance.now();
    const got = await run(i);
    lat.push(performance.now() - t0);
    if (i < truth.length) tally.add(recallHits(got, truth[i]!, dist(qs[i]!), 10));
  }
  console.log(
    `${label}: recall@10 ${tally.format()}, p50 ${percentile(lat, 50).toFixed(1)} ms, p95 ${percentile(lat, 95).toFixed(1)} ms; load ${load()}`,
  );
}

async function main(): Promise<void> {
  const dir = KEPT ?? join(tmpdir(), `ragd-lexical-${N}`);
  const fresh = !existsSync(dir);
  mkdirSync(dir, { recursive: true });
  const conn = await openLance(dir);
  const vectorStore = new VectorStore(conn, { annThreshold: Number.MAX_SAFE_INTEGER });
  const all = new Float32Array(N * DIM);
  const ids: string[] = new Array(N);
  let name = VectorStore.tableName(COLLECTION, 1);
  const state = await restore(dir, all, ids);
  if (state) name = VectorStore.tableName(state.pipelineId, 1);
  else if (fresh) {
    await fillTopical(vectorStore, COLLECTION, N, all, ids);
    await vectorStore.upkeep();
    await Bun.write(`${dir}/lex-vectors.f32`, all);
    await Bun.write(`${dir}/lex-ids.txt`, ids.join("\n"));
  } else {
    all.set(new Float32Array(await Bun.file(`${dir}/lex-vectors.f32`).arrayBuffer()));
    (await Bun.file(`${dir}/lex-ids.txt`).text()).split("\n").forEach((id, i) => {
      ids[i] = id;
    });
  }
  const table = await conn.openTable(name);
  const partitions = partitionsForRows(N);
  const serving = vectorIndexes(await table.listIndices())[0];
  const wantName = `vector_${KIND}_${N}`;
  if (!state && serving?.name !== wantName) {
    if (serving) await table.dropIndex(serving.name);
    const t0 = performance.now();
    const config =
      KIND === "ivfpq"
        ? Index.ivfPq({
            numPartitions: partitions,
            numSubVectors: DIM / 16,
            distanceType: "cosine",
            sampleRate: 64,
            maxIterations: 10,
          })
        : Index.ivfFlat({ numPartitions: partitions, distanceType: "cosine", sampleRate: 64, maxIterations: 10 });
    await table.createIndex("vector", { config, name: wantName, replace: true });
    console.log(`${wantName} built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  console.log(
    `serving ${JSON.stringify(vectorIndexes(await table.listIndices())[0])} (ann.ts would pick ${annIndexFor(N, DIM).name})`,
  );
  const qrnd = random(7);
  const texts = Array.from({ length: 200 }, () => sentence(qrnd, 3 + Math.floor(qrnd() * 4)));
  const qs = texts.map(embedBuiltin);
  // Exact answers take about a second each at 1M rows: a kept directory keeps them (kept-corpus.ts).
  const truth = await exactAnswers(KEPT, texts.slice(0, TRUTH), (text) => flatTopK(table, embedBuiltin(text), 10));
  const dist = exactDistances(all, ids, DIM);
  console.log(`lexical: ${N.toLocaleString()} rows, ${partitions} partitions; load ${load()}`);
  for (const i of texts.slice(0, 20)) await fts(table, i, embedBuiltin(i), 100);
  for (const m of MS)
    await measure(`fts top ${m} alone`, texts, qs, truth, dist, async (i) =>
      unionTop10([await fts(table, texts[i]!, qs[i]!, m)]),
    );
  for (const share of SHARES) {
    await measure(`ann ${share * 100}% alone`, texts, qs, truth, dist, async (i) =>
      unionTop10([await ann(table, qs[i]!, share, partitions)]),
    );
    for (const m of MS)
      await measure(`ann ${share * 100}% ∪ fts ${m}`, texts, qs, truth, dist, async (i) =>
        unionTop10(await Promise.all([ann(table, qs[i]!, share, partitions), fts(table, texts[i]!, qs[i]!, m)])),
      );
  }
  table.close();
  vectorStore.close();
  conn.close();
}

await main();
