/**
 * Lexical candidates on real text: recall@10 against exact search of an IVF_PQ index
 * probed at small shares alone, of the full-text index's top M rows alone, and of their
 * union (what a search of built-in vectors on IVF_PQ does: src/vectors/lexical-candidates.ts),
 * in process, on SciFact's abstracts cut into 50-word chunks.
 *
 *   ./node_modules/.bin/bun bench/lexical-scifact.ts [builtin|builtin-glove] [--datasets DIR]
 *
 * The queries are SciFact's 1,109 claims; exact search is a JavaScript scan of every
 * vector. M values in MS (default 100,300,1000), probe shares in SHARES (default 0.02,0.05,0.15).
 * bench/lexical.ts measures the same on the generated topical corpus, with latency.
 */
import { Index, MatchQuery, type Table } from "@lancedb/lancedb";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { embedBuiltin } from "../src/embed/builtin";
import { embedGlove } from "../src/embed/builtin-glove";
import { partitionsForRows } from "../src/vectors/ann";
import { openLance } from "../src/vectors/connection";
import { VectorStore, type ChunkRow } from "../src/vectors/store";
import { DATASETS, loadCorpus } from "./support";
import { unionTop10 } from "./recall";

const MODEL = process.argv[2] === "builtin-glove" ? "builtin-glove" : "builtin";
const embed = MODEL === "builtin" ? embedBuiltin : (t: string) => embedGlove(t);
const at = process.argv.indexOf("--datasets");
const DIR = at > 0 ? process.argv[at + 1]! : DATASETS;
const MS = (process.env.MS ?? "100,300,1000").split(",").map(Number);
const SHARES = (process.env.SHARES ?? "0.02,0.05,0.15").split(",").map(Number);
const COLLECTION = "00000000-0000-4000-8000-0000000000c3";
const WORDS = 50;

function chunks(): ChunkRow[] {
  const rows: ChunkRow[] = [];
  for (const d of loadCorpus(Infinity, DIR)) {
    const words = `${d.title}\n\n${d.text}`.split(/\s+/).filter(Boolean);
    for (let c = 0; c * WORDS < words.length; c++) {
      const text = words.slice(c * WORDS, (c + 1) * WORDS).join(" ");
      const vector = embed(text);
      rows.push({ id: `${d.id}:${c}`, documentId: d.id, chunkIndex: c, text, start: 0, end: text.length, vector });
    }
  }
  return rows;
}

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

type Hit = { id: string; score: number };
type Row = { document_id: string; chunk_index: number; _distance?: number; vector?: Iterable<number> };
const idOf = (r: Row) => `${r.document_id}:${r.chunk_index}`;

async function ann(table: Table, q: Float32Array, probes: number): Promise<Hit[]> {
  const rows = (await table
    .vectorSearch(q)
    .distanceType("cosine")
    .select(["document_id", "chunk_index", "_distance"])
    .limit(10)
    .nprobes(probes)
    .refineFactor(100)
    .toArray()) as Row[];
  return rows.map((r) => ({ id: idOf(r), score: 1 - r._distance! }));
}

async function fts(table: Table, text: string, q: Float32Array, m: number): Promise<Hit[]> {
  const words = text.replace(/[^\p{L}\p{N}\p{M}_]+/gu, " ").trim();
  if (!words) return [];
  const rows = (await table
    .query()
    .fullTextSearch(new MatchQuery(words, "text"))
    .select(["document_id", "chunk_index", "vector", "_score"])
    .limit(m)
    .toArray()) as Row[];
  return rows.map((r) => {
    const v = Float32Array.from(r.vector!);
    return { id: idOf(r), score: dot(q, v) / Math.sqrt(dot(v, v) * dot(q, q) || 1) };
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ragd-bench-lexical-"));
  const conn = await openLance(dir);
  const vectorStore = new VectorStore(conn, { annThreshold: Number.MAX_SAFE_INTEGER });
  try {
    const rows = chunks();
    for (let i = 0; i < rows.length; i += 5000)
      await vectorStore.replaceDocuments(COLLECTION, 1, [], rows.slice(i, i + 5000), { appendedAreNew: true });
    await vectorStore.upkeep();
    const table = await conn.openTable(VectorStore.tableName(COLLECTION, 1));
    const partitions = partitionsForRows(rows.length);
    const sub = rows[0]!.vector.length % 16 === 0 ? rows[0]!.vector.length / 16 : rows[0]!.vector.length / 4;
    await table.createIndex("vector", {
      config: Index.ivfPq({ numPartitions: partitions, numSubVectors: sub, distanceType: "cosine" }),
    });
    const queries = readFileSync(join(DIR, "scifact", "queries.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => (JSON.parse(l) as { text: string }).text);
    const qv = queries.map((q) => embed(q));
    const truth = qv.map((q) => {
      const s = rows.map((r, i) => ({ i, s: dot(q, r.vector) }));
      return new Set(
        s
          .sort((a, b) => b.s - a.s)
          .slice(0, 10)
          .map((x) => rows[x.i]!.id),
      );
    });
    console.log(
      `lexical-scifact (${MODEL}): ${rows.length} chunks of ${WORDS} words, ${queries.length} queries, ${partitions} partitions; load ${loadavg()
        .map((x) => x.toFixed(2))
        .join(" ")}`,
    );
    const recall = async (label: string, run: (i: number) => Promise<string[]>) => {
      let found = 0;
      for (let i = 0; i < queries.length; i++) found += (await run(i)).filter((id) => truth[i]!.has(id)).length;
      console.log(`${label}: recall@10 ${(found / (queries.length * 10)).toFixed(3)}`);
    };
    for (const m of MS)
      await recall(`fts top ${m} alone`, async (i) => unionTop10([await fts(table, queries[i]!, qv[i]!, m)]));
    for (const share of SHARES) {
      const probes = Math.max(1, Math.ceil(partitions * share));
      await recall(`ann ${share * 100}% alone`, async (i) => unionTop10([await ann(table, qv[i]!, probes)]));
      for (const m of MS)
        await recall(`ann ${share * 100}% ∪ fts ${m}`, async (i) =>
          unionTop10([await ann(table, qv[i]!, probes), await fts(table, queries[i]!, qv[i]!, m)]),
        );
    }
    table.close();
  } finally {
    vectorStore.close();
    conn.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
