/**
 * Filtered query latency and recall, in process on one LanceDB table through
 * VectorStore.search (the path the query endpoint takes after embedding):
 *
 *   ./node_modules/.bin/bun bench/filter.ts [--rows 100000] [--dim 384] [--queries 40] [--dir DIR]
 *
 * Builds the chunk table directly (rowsToArrow, the writer's schema; not through
 * ingestion), ten chunks per document, document d carrying metadata
 * `{bucket: "b<d % 100>", tenth: "t<d % 10>", year: 2000 + d % 10, tags: ["k<d % 10>", "all"]}`
 * and `flag: true` when d % 100 = 3; vectors drawn around 200 centres; text from a
 * 2,000-word vocabulary. Then the indexes upkeep builds: full-text, b-trees on
 * document_id and id, LABEL_LIST on metadata_terms (when the table has it) and the ANN
 * index ann.ts picks for the size. With `--dir` the table is kept there and reused by
 * the next run (so runs of two versions of the code can time one table).
 *
 * Each mode (vector, keyword, hybrid) is timed without a filter and with filters
 * matching 1 %, 10 % and 100 % of the chunks, compiled by the real filter compiler:
 * p50 / p95 of `queries` queries, topK 10. Recall@10 is the filtered ANN search
 * (production probes) against an exact filtered search (bypassing the ANN index).
 */
import { Index, type Table } from "@lancedb/lancedb";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Metadata } from "../src/core/metadata";
import { compileMetadataFilter } from "../src/retrieval/filter";
import { annIndexFor } from "../src/vectors/ann";
import { openLance, type LanceConnection } from "../src/vectors/connection";
import { encodeChunkMetadata } from "../src/vectors/meta-index";
import { VectorStore, type ChunkRow, type SearchMode } from "../src/vectors/store";
import { rowsToArrow } from "../src/vectors/tables";
import { ensureFtsIndex } from "../src/vectors/writer";
import { percentile, random } from "./support";

const { values: args } = parseArgs({
  options: {
    rows: { type: "string", default: "100000" },
    dim: { type: "string", default: "384" },
    queries: { type: "string", default: "40" },
    dir: { type: "string" },
  },
});
const N = Number(args.rows);
const DIM = Number(args.dim);
const QUERIES = Number(args.queries);
const RECALL_QUERIES = 10;
const PER_DOC = 10;
const BATCH = 20_000;
const COLLECTION = "00000000-0000-4000-8000-0000000000f1";
const rndWords = random(3);
const SYL = "ka ro mi tan vel sor qu ix len dra po ne ul ga thi ber zo fen mar lit".split(" ");
const WORDS = Array.from({ length: 2000 }, (_, i) => {
  const w = Array.from({ length: 3 }, () => SYL[Math.floor(rndWords() * SYL.length)]).join("");
  return `${w}${i}`;
});

const FILTERS: [string, unknown][] = [
  ["none", undefined],
  ["1 % bucket = b7", { bucket: "b7" }],
  ["1 % flag $exists", { flag: { $exists: true } }],
  ["10 % tenth = t3", { tenth: "t3" }],
  ["10 % tags $in [k3]", { tags: { $in: ["k3"] } }],
  ["10 % year >= 2009 (range)", { year: { $gte: 2009 } }],
  ["1 % bucket = b9, year >= 2009", { bucket: "b9", year: { $gte: 2009 } }],
  ["100 % sourceType = text", { sourceType: "text" }],
  ["100 % tags $exists", { tags: { $exists: true } }],
];

const metadataOf = (d: number): Metadata => ({
  bucket: `b${d % 100}`,
  tenth: `t${d % 10}`,
  year: 2000 + (d % 10),
  tags: [`k${d % 10}`, "all"],
  ...(d % 100 === 3 ? { flag: true } : {}),
});

function gauss(rnd: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
}
const CENTRES = ((rnd) => Array.from({ length: 200 }, () => Float32Array.from({ length: DIM }, () => gauss(rnd))))(
  random(5),
);

/** A unit vector near a random centre (clustered, as embeddings are). */
function draw(rnd: () => number): Float32Array {
  const c = CENTRES[Math.floor(rnd() * CENTRES.length)]!;
  const v = Float32Array.from(c, (x) => x + 1.2 * gauss(rnd));
  let n = 0;
  for (const x of v) n += x * x;
  const inv = 1 / Math.sqrt(n);
  for (let i = 0; i < v.length; i++) v[i]! *= inv;
  return v;
}

const text = (rnd: () => number, n: number) =>
  Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" ");

async function build(conn: LanceConnection, name: string): Promise<Table> {
  const rnd = random(1);
  let table: Table | null = null;
  for (let from = 0; from < N; from += BATCH) {
    const rows: ChunkRow[] = [];
    for (let i = from; i < Math.min(N, from + BATCH); i++) {
      const d = Math.floor(i / PER_DOC);
      const t = text(rnd, 12);
      const metadata = encodeChunkMetadata(metadataOf(d), { sourceType: "text", externalId: null });
      const id = `doc${d}`;
      rows.push({
        id: `${id}:${i % PER_DOC}`,
        documentId: id,
        chunkIndex: i % PER_DOC,
        text: t,
        start: 0,
        end: t.length,
        vector: draw(rnd),
        metadata,
      });
    }
    if (table) await table.add(rowsToArrow(rows));
    else table = await conn.createTable(name, rowsToArrow(rows));
  }
  const t = table!;
  const step = async (label: string, fn: () => Promise<unknown>) => {
    const s = performance.now();
    await fn();
    console.error(`  ${label}: ${((performance.now() - s) / 1000).toFixed(1)} s`);
  };
  await step("full-text index", () => ensureFtsIndex(t));
  for (const c of ["document_id", "id"]) await step(`btree ${c}`, () => t.createIndex(c, { config: Index.btree() }));
  const ann = annIndexFor(N, DIM);
  await step(`${ann.indexType} index`, () => t.createIndex("vector", { config: ann.config, name: ann.name }));
  return t;
}

/** The LABEL_LIST index on the terms, when the table has the column (a version of the code from before has not). */
async function ensureTermsIndex(t: Table): Promise<void> {
  if (!(await t.schema()).fields.some((f) => f.name === "metadata_terms")) return;
  if ((await t.listIndices()).some((i) => i.columns.includes("metadata_terms"))) return;
  const s = performance.now();
  await t.createIndex("metadata_terms", { config: Index.labelList() });
  console.error(`  label-list index: ${((performance.now() - s) / 1000).toFixed(1)} s`);
}

async function time(store: VectorStore, mode: SearchMode, where: string | undefined) {
  const rnd = random(7);
  const ask = () => store.search(COLLECTION, 1, { mode, text: text(rnd, 2), vector: draw(rnd), topK: 10, where });
  for (let i = 0; i < 3; i++) await ask();
  const ms: number[] = [];
  let hits = 0;
  for (let i = 0; i < QUERIES; i++) {
    const s = performance.now();
    hits += (await ask()).length;
    ms.push(performance.now() - s);
  }
  return `${percentile(ms, 50).toFixed(1)} / ${percentile(ms, 95).toFixed(1)} (${(hits / QUERIES).toFixed(0)})`;
}

/** Recall@10 of the production vector search against exact search under the same filter. */
async function recall(store: VectorStore, table: Table, where: string | undefined): Promise<string> {
  const rnd = random(11);
  let found = 0;
  let total = 0;
  for (let i = 0; i < RECALL_QUERIES; i++) {
    const vector = draw(rnd);
    const got = await store.search(COLLECTION, 1, { mode: "vector", text: "", vector, topK: 10, where });
    let exact = table
      .vectorSearch(vector)
      .distanceType("cosine")
      .bypassVectorIndex()
      .select(["id", "_distance"])
      .limit(10);
    if (where) exact = exact.where(where);
    const truth = new Set((await exact.toArray()).map((r) => `${r.id}`));
    total += truth.size;
    found += got.filter((h) => truth.has(`${h.documentId}:${h.chunkIndex}`)).length;
  }
  return total ? (found / total).toFixed(3) : "-";
}

async function main(): Promise<void> {
  const dir = args.dir ?? mkdtempSync(join(tmpdir(), "ragd-bench-filter-"));
  const name = VectorStore.tableName(COLLECTION, 1);
  const conn = await openLance(dir);
  const store = new VectorStore(conn, { log: (msg, f) => console.error(`  ${msg}`, JSON.stringify(f ?? {})) });
  try {
    const t0 = performance.now();
    const reuse = (await conn.tableNames()).includes(name);
    const table = reuse ? await conn.openTable(name) : await build(conn, name);
    await ensureTermsIndex(table);
    const rows = await table.countRows();
    const built = ((performance.now() - t0) / 1000).toFixed(1);
    console.error(`${reuse ? "reused" : "built"} ${rows} chunks (${DIM}-d) in ${built} s`);
    const out: Record<string, Record<string, string>> = {};
    for (const [label, filter] of FILTERS) {
      const where = compileMetadataFilter(filter) ?? undefined;
      const row: Record<string, string> = {};
      for (const mode of ["vector", "keyword", "hybrid"] as const) row[mode] = await time(store, mode, where);
      row["recall@10"] = await recall(store, table, where);
      out[label] = row;
      console.error(`  ${label}: ${JSON.stringify(row)}`);
    }
    const indexes = (await table.listIndices()).map((i) => `${i.columns.join(",")}:${i.indexType}`).join(" ");
    console.log(`p50 / p95 ms (mean hits) of ${QUERIES} queries, topK 10, ${rows} chunks of ${DIM} dimensions`);
    console.log(`indexes: ${indexes}`);
    console.table(out);
    table.close();
  } finally {
    store.close();
    conn.close();
    if (!args.dir) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
