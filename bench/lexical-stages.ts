/**
 * Where a built-in table's vector search spends its time, stage by stage, in process, on a
 * table bench/query-http.ts kept (`--dir`): the ANN search as ragd asks it, the full-text
 * search for the lexical candidates with and without their vectors, the candidates as
 * ragd joins them, and the whole search (searchTable).
 *
 *   ./node_modules/.bin/bun bench/lexical-stages.ts 1000000 --dir DIR
 *
 * Every query runs every stage, in an order that rotates from query to query, so drift in
 * the machine's load and warm caches favour none; p50 and p95 in ms, load average beside.
 * STAGES="a;b" picks stages by name; AGREE=n compares n hybrid answers with deeper re-ranks'.
 */
import { MatchQuery, type Table } from "@lancedb/lancedb";
import type { Table as ArrowTable } from "apache-arrow";
import { loadavg } from "node:os";
import { embedBuiltin } from "../src/embed/builtin";
import { partitionsForRows, vectorIndexes } from "../src/vectors/ann";
import { type AnnProbes, probesForRows } from "../src/vectors/ann-probes";
import { openLance } from "../src/vectors/connection";
import { COLUMNS } from "../src/vectors/hits";
import { lexicalCandidates, matchableText } from "../src/vectors/lexical-candidates";
import { searchTable } from "../src/vectors/search";
import { VectorStore } from "../src/vectors/store";
import { vectorQuery } from "../src/vectors/vector-hits";
import { dirArg, restore } from "./kept-corpus";
import { N, sentence } from "./query-corpus";
import { percentile, random } from "./support";

const DIM = 384;
const M = Number(process.env.M ?? 300);
const QUERIES = Number(process.env.QUERIES ?? 200);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

type Stage = (text: string, q: Float32Array) => Promise<unknown>;

function fts(table: Table, text: string, select: string[]): Promise<ArrowTable> {
  const q = table.query().fullTextSearch(new MatchQuery(matchableText(text), "text"));
  return q.select(select).limit(M).toArrow();
}

function stagesOf(table: Table, ann: AnnProbes): Record<string, Stage> {
  const refined =
    (refine: number): Stage =>
    (_, q) =>
      vectorQuery(table, q, 10, null, { ...ann, refine }, undefined).toArrow();
  return {
    "ann refine 100": refined(100),
    "ann refine 30": refined(30),
    "ann refine 10": refined(10),
    "ann refine 30, row ids only": (_, q) =>
      vectorQuery(table, q, 10, null, { ...ann, refine: 30 }, undefined)
        .select(["_rowid", "_distance"])
        .toArrow(),
    // Hybrid's vector list asks for 50 rows (search.ts), re-ranking 30 × of them.
    "ann 50 rows refine 30": (_, q) => vectorQuery(table, q, 50, null, { ...ann, refine: 30 }, undefined).toArrow(),
    "ann 50 rows refine 6": (_, q) => vectorQuery(table, q, 50, null, { ...ann, refine: 6 }, undefined).toArrow(),
    "lexical candidates, 50 rows": (t, q) => lexicalCandidates(table, { text: t }, q, M, 50, null),
    "fts ids": (t) => fts(table, t, ["_rowid", "_score"]),
    "fts ids + vector": (t) => fts(table, t, ["_rowid", "_score", "vector"]),
    "fts hit columns + vector": (t) => fts(table, t, ["_rowid", "_score", "vector", ...COLUMNS]),
    "fts ids + text, embedded": async (t) =>
      ((await fts(table, t, ["_rowid", "text"])).getChild("text")!.toArray() as string[]).map(embedBuiltin),
    "lexical candidates (ragd)": (t, q) => lexicalCandidates(table, { text: t }, q, M, 10, null),
    "search, no candidates": (t, q) =>
      searchTable(table, { mode: "vector", text: t, vector: q, topK: 10 }, { ...ann, lexical: undefined }),
    "search (vector mode)": (t, q) => searchTable(table, { mode: "vector", text: t, vector: q, topK: 10 }, ann),
    "search (hybrid)": (t, q) => searchTable(table, { mode: "hybrid", text: t, vector: q, topK: 10 }, ann),
    "search (hybrid), re-rank uncapped": (t, q) =>
      searchTable(table, { mode: "hybrid", text: t, vector: q, topK: 10 }, { ...ann, refinedRows: undefined }),
  };
}

/**
 * How far hybrid answers (topK 10) with the served probes agree with those of deeper
 * re-ranks: the share of their ids in common, over `texts` (AGREE=n queries).
 */
async function hybridAgreement(table: Table, ann: AnnProbes, texts: string[], qs: Float32Array[]): Promise<void> {
  const ids = async (i: number, probes: AnnProbes) =>
    (await searchTable(table, { mode: "hybrid", text: texts[i]!, vector: qs[i]!, topK: 10 }, probes)).map(
      (h) => `${h.documentId}:${h.chunkIndex}`,
    );
  const deeper = {
    "re-rank 30 ×, uncapped": { refinedRows: undefined },
    "re-rank 100 ×, uncapped": { refine: 100, refinedRows: undefined },
  };
  for (const [label, change] of Object.entries(deeper)) {
    let same = 0;
    let all = 0;
    for (let i = 0; i < texts.length; i++) {
      const served = new Set(await ids(i, ann));
      const other = await ids(i, { ...ann, ...change });
      same += other.filter((id) => served.has(id)).length;
      all += other.length;
    }
    console.log(`hybrid top 10 in common with ${label}: ${(same / all).toFixed(3)} (${texts.length} queries)`);
  }
}

async function main(): Promise<void> {
  const dir = dirArg();
  if (!dir) throw new Error("--dir DIR: a table bench/query-http.ts kept");
  const state = await restore(dir, new Float32Array(N * DIM), new Array(N));
  if (!state) throw new Error(`${dir} holds no kept table`);
  const conn = await openLance(dir);
  const table = await conn.openTable(VectorStore.tableName(state.pipelineId, 1));
  const [serving] = vectorIndexes(await table.listIndices());
  const ann = probesForRows(serving!.trainedRows, serving!.indexType, "builtin");
  const qrnd = random(7);
  const texts = Array.from({ length: QUERIES + 20 }, () => sentence(qrnd, 3 + Math.floor(qrnd() * 4)));
  const qs = texts.map(embedBuiltin);
  const pick = process.env.STAGES?.split(";");
  const stages = Object.entries(stagesOf(table, ann)).filter(([label]) => !pick || pick.includes(label));
  console.log(
    `lexical-stages: ${N.toLocaleString()} rows, ${partitionsForRows(N)} partitions, ${JSON.stringify(ann)}, M ${M}`,
  );
  const lat = stages.map(() => [] as number[]);
  for (let i = 0; i < texts.length; i++)
    for (let k = 0; k < stages.length; k++) {
      const s = (i + k) % stages.length;
      const t0 = performance.now();
      await stages[s]![1](texts[i]!, qs[i]!);
      // The first 20 queries warm the caches.
      if (i >= 20) lat[s]!.push(performance.now() - t0);
    }
  for (const [s, [label]] of stages.entries()) {
    const p = (x: number) => percentile(lat[s]!, x).toFixed(1).padStart(6);
    console.log(`${label.padEnd(36)} p50 ${p(50)} ms  p95 ${p(95)} ms`);
  }
  console.log(`load ${load()}`);
  if (process.env.AGREE) await hybridAgreement(table, ann, texts.slice(0, Number(process.env.AGREE)), qs);
  table.close();
  conn.close();
}

await main();
