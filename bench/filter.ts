/**
 * Filtered query latency and recall, in process on one LanceDB table through
 * VectorStore.search (the path the query endpoint takes after embedding):
 *
 *   ./node_modules/.bin/bun bench/filter.ts [--rows 100000] [--dim 384] [--queries 40] [--dir DIR]
 *
 * Builds the chunk table directly (rowsToArrow, the writer's schema; not through
 * ingestion), ten chunks per document, document d carrying metadata
 * `{bucket: "b<d % 100>", tenth: "t<d % 10>", year: 2000 + d % 10, tags: ["k<d % 10>", "all"]}`
 * `_access: ["g<d % 100>"]`, and `flag: true` when d % 100 = 3; vectors drawn around 200 centres; text from a
 * 2,000-word vocabulary. Then the indexes upkeep builds: full-text, b-trees on
 * document_id and id, LABEL_LIST on metadata_terms (when the table has it) and the ANN
 * index ann.ts picks for the size. With `--dir` the table is kept there and reused by
 * the next run (so runs of two versions of the code can time one table).
 *
 * Each mode (vector, keyword, hybrid) is timed without a filter and with filters
 * matching 0.1 % (`sourceIds`), 1 %, 3 %, 10 % and 100 % of the chunks, compiled by the
 * real filter compiler: p50 / p95 of `queries` queries, topK 10, and p50 as a multiple
 * of the same mode's unfiltered p50 in the same run. Vector and hybrid run twice,
 * query by query in turn: as the server does (`path` says which way the vector search
 * went, vectors/exact-filter.ts) and through the index whatever the filter matches
 * (`idx`, the path before narrow filters were searched exactly). Recall@10 is each
 * against an exact filtered search (bypassing the ANN index).
 */
import { Index, type Table } from "@lancedb/lancedb";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Metadata } from "../src/core/metadata";
import { compileMetadataFilter } from "../src/retrieval/filter";
import { annIndexFor, vectorIndexes } from "../src/vectors/ann";
import { probesForRows } from "../src/vectors/ann-probes";
import { openLance, type LanceConnection } from "../src/vectors/connection";
import { planFilteredSearch } from "../src/vectors/exact-filter";
import { encodeChunkMetadata } from "../src/vectors/meta-index";
import { VectorStore, type ChunkRow, type SearchMode } from "../src/vectors/store";
import { rowsToArrow } from "../src/vectors/chunk-arrow";
import { inList } from "../src/vectors/tables";
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

/** Label, metadata filter, and the share of documents named in `sourceIds` (documentIds). */
const FILTERS: [string, unknown, number?][] = [
  ["none", undefined],
  ["0.1 % sourceIds", undefined, 0.001],
  ["1 % bucket = b7", { bucket: "b7" }],
  ["1 % flag $exists", { flag: { $exists: true } }],
  ["3 % bucket $in [b0 b1 b2]", { bucket: { $in: ["b0", "b1", "b2"] } }],
  ["10 % tenth = t3", { tenth: "t3" }],
  ["10 % tags $in [k3]", { tags: { $in: ["k3"] } }],
  ["10 % year >= 2009 (range)", { year: { $gte: 2009 } }],
  ["1 % bucket = b9, year >= 2009", { bucket: "b9", year: { $gte: 2009 } }],
  ["100 % sourceType = text", { sourceType: "text" }],
  ["100 % tags $exists", { tags: { $exists: true } }],
  // A tenant token's _access rule (features/keys/access.ts), its principals matching 1, 10, 100 % of chunks.
  ["1 % token _access, 1 principal", tokenRule(1)],
  ["10 % token _access, 10 principals", tokenRule(10)],
  ["100 % token _access, 100 principals", tokenRule(100)],
];

/** The `_access` rule a tenant token with principals g0…g(n-1) is held to. */
function tokenRule(n: number): unknown {
  const principals = Array.from({ length: n }, (_, i) => `g${i}`);
  return { $or: [{ _access: { $in: principals } }, { _access: { $exists: false } }] };
}

const metadataOf = (d: number): Metadata => ({
  bucket: `b${d % 100}`,
  tenth: `t${d % 10}`,
  year: 2000 + (d % 10),
  tags: [`k${d % 10}`, "all"],
  _access: [`g${d % 100}`],
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

/** One filter as a search asks it: the compiled metadata filter and the named documents. */
interface Filter {
  where?: string;
  documentIds?: string[];
}

/** The filter as the `where` a table search builds of it (search.ts); "" for none. */
function whereOf(filter: Filter): string {
  return [filter.documentIds ? inList("document_id", filter.documentIds) : null, filter.where ?? null]
    .filter((w) => w !== null)
    .map((w) => `(${w})`)
    .join(" AND ");
}

/** p50 and p95 (ms) and mean hits of each store's search, the stores asked in turn with the same query. */
async function time(stores: VectorStore[], mode: SearchMode, filter: Filter) {
  const rnd = random(7);
  const queries = Array.from({ length: QUERIES + 3 }, () => ({ text: text(rnd, 2), vector: draw(rnd) }));
  const ask = (vectorStore: VectorStore, q: (typeof queries)[number]) =>
    vectorStore.search(COLLECTION, 1, { mode, ...q, topK: 10, ...filter });
  for (const q of queries.slice(0, 3)) for (const vectorStore of stores) await ask(vectorStore, q);
  const ms = stores.map(() => [] as number[]);
  const hits = stores.map(() => 0);
  for (const [i, q] of queries.slice(3).entries()) {
    // Alternate who goes first, so neither always meets a warm cache.
    const order = stores.map((_, k) => k);
    for (const k of i % 2 ? order.reverse() : order) {
      const s = performance.now();
      hits[k]! += (await ask(stores[k]!, q)).length;
      ms[k]!.push(performance.now() - s);
    }
  }
  return ms.map((m, k) => ({ p50: percentile(m, 50), p95: percentile(m, 95), hits: hits[k]! / QUERIES }));
}

/** Recall@10 of a store's vector search against exact search under the same filter. */
async function recall(vectorStore: VectorStore, table: Table, filter: Filter): Promise<string> {
  const rnd = random(11);
  const where = whereOf(filter);
  let found = 0;
  let total = 0;
  for (let i = 0; i < RECALL_QUERIES; i++) {
    const vector = draw(rnd);
    const got = await vectorStore.search(COLLECTION, 1, { mode: "vector", text: "", vector, topK: 10, ...filter });
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

/** Which way the server's vector search goes for the filter (vectors/exact-filter.ts). */
async function pathOf(table: Table, filter: Filter): Promise<string> {
  const where = whereOf(filter);
  const serving = vectorIndexes(await table.listIndices())[0];
  if (!where || !serving) return "index";
  const plan = await planFilteredSearch(table, where, probesForRows(serving.trainedRows, serving.indexType));
  return plan ? `${plan.path} (${plan.matches})` : "index (uncounted)";
}

/** "p50 / p95 ×ratio": the ratio is p50 over the unfiltered p50 of the same mode and path. */
function cell(t: { p50: number; p95: number; hits: number }, none: number | undefined): string {
  const hits = t.hits < 10 ? ` (${t.hits.toFixed(1)} hits)` : "";
  return `${t.p50.toFixed(1)} / ${t.p95.toFixed(1)} ×${(t.p50 / (none ?? t.p50)).toFixed(2)}${hits}`;
}

/** The filter of a FILTERS row: its metadata compiled, and `docShare` of the documents as sourceIds. */
function filterOf(metadata: unknown, docShare: number | undefined, rows: number): Filter {
  const docs = docShare ? Math.round((rows / PER_DOC) * docShare) : 0;
  const spread = (i: number) => `doc${Math.floor((i * rows) / PER_DOC / docs)}`;
  return {
    where: compileMetadataFilter(metadata) ?? undefined,
    documentIds: docs ? Array.from({ length: docs }, (_, i) => spread(i)) : undefined,
  };
}

/** One table row: the path, each mode's times (served and index-only), and recall; the unfiltered row fills `none`. */
async function measure(
  table: Table,
  { vectorStore, indexOnly }: { vectorStore: VectorStore; indexOnly: VectorStore },
  filter: Filter,
  none: Record<string, number>,
  isNone: boolean,
): Promise<Record<string, string>> {
  const row: Record<string, string> = { path: await pathOf(table, filter) };
  for (const mode of ["vector", "hybrid"] as const) {
    const [served, idx] = await time([vectorStore, indexOnly], mode, filter);
    if (isNone) Object.assign(none, { [mode]: served!.p50, [`${mode} idx`]: idx!.p50 });
    row[`${mode} idx`] = cell(idx!, none[`${mode} idx`]);
    row[mode] = cell(served!, none[mode]);
  }
  const [key] = await time([vectorStore], "keyword", filter);
  if (isNone) none.keyword = key!.p50;
  row.keyword = cell(key!, none.keyword);
  row["recall idx"] = await recall(indexOnly, table, filter);
  row.recall = await recall(vectorStore, table, filter);
  return row;
}

async function main(): Promise<void> {
  const dir = args.dir ?? mkdtempSync(join(tmpdir(), "ragd-bench-filter-"));
  const name = VectorStore.tableName(COLLECTION, 1);
  const conn = await openLance(dir);
  const log = (msg: string, f?: object) => console.error(`  ${msg}`, JSON.stringify(f ?? {}));
  const vectorStore = new VectorStore(conn, { log });
  const indexOnly = new VectorStore(conn, { log, exactFilter: { share: 0, offset: 0, rows: 0 } });
  try {
    const t0 = performance.now();
    const reuse = (await conn.tableNames()).includes(name);
    const table = reuse ? await conn.openTable(name) : await build(conn, name);
    await ensureTermsIndex(table);
    const rows = await table.countRows();
    const built = ((performance.now() - t0) / 1000).toFixed(1);
    console.error(`${reuse ? "reused" : "built"} ${rows} chunks (${DIM}-d) in ${built} s`);
    const out: Record<string, Record<string, string>> = {};
    const none: Record<string, number> = {};
    for (const [label, metadata, docShare] of FILTERS) {
      const row = await measure(
        table,
        { vectorStore: vectorStore, indexOnly },
        filterOf(metadata, docShare, rows),
        none,
        label === "none",
      );
      out[label] = row;
      console.error(`  ${label}: ${JSON.stringify(row)}`);
    }
    const indexes = (await table.listIndices()).map((i) => `${i.columns.join(",")}:${i.indexType}`).join(" ");
    console.log(
      `p50 / p95 ms ×(p50 ÷ unfiltered p50) of ${QUERIES} queries, topK 10, ${rows} chunks of ${DIM} dimensions`,
    );
    console.log(`indexes: ${indexes}`);
    console.table(out);
    table.close();
  } finally {
    vectorStore.close();
    indexOnly.close();
    conn.close();
    if (!args.dir) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
