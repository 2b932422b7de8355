/**
 * The table bench/query-options.ts and bench/per-source.ts query: one pipeline of the
 * built-in embedder whose sources are stored through the named queries as ready text
 * sources (ten 12-word chunks of made-up words each, source d with metadata
 * `{team: "t<d % 10>", published: <a date d hours ago>}`), and whose chunk table is
 * written directly with the built-in embedder's vectors and the full-text, b-tree,
 * label-list and ANN indexes upkeep builds (as bench/filter.ts does), not ingested.
 *
 * The server's periodic upkeep is off: a tick during the build indexed the first
 * batches' text, and the build then left the rest outside the full-text index (its
 * writes bypass the writer, so upkeep never refreshed them), so that every keyword search
 * read 60,000 unindexed rows and hybrid queries took 0.5–2 s at 100,000 chunks. The
 * build checks that every index covers every row. Built or reopened, the table then gets
 * one upkeep pass, as a server's first after it starts: compacted, and known to be wholly
 * indexed.
 *
 * With `keep` (a directory), the app's data lives there and the pipeline's id is kept
 * beside it, so a later run with the same directory and size reopens the table instead
 * of building it again (100,000 chunks take a minute or more to build).
 */
import { Index } from "@lancedb/lancedb";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findCollectionById } from "../src/db/repo/collections";
import { insertDocument } from "../src/db/repo/documents";
import { createEmbedder } from "../src/embed/index";
import { newDocumentRow } from "../src/ingest/tasks/queue";
import { analyseForIndex } from "../src/text/analyze";
import { annIndexFor } from "../src/vectors/ann";
import { rowsToArrow } from "../src/vectors/chunk-arrow";
import { encodeChunkMetadata } from "../src/vectors/meta-index";
import type { ChunkRow } from "../src/vectors/tables";
import { VectorStore } from "../src/vectors/store";
import { ensureFtsIndex } from "../src/vectors/writer";
import { makeApp, type TestApp } from "../test/support/app";
import { random } from "./support";

const PER_DOC = 10;
const BATCH = 10_000;
const HOUR = 3_600_000;

const rndWords = random(3);
const SYL = "ka ro mi tan vel sor qu ix len dra po ne ul ga thi ber zo fen mar lit".split(" ");
const WORDS = Array.from({ length: 2000 }, (_, i) => {
  const w = Array.from({ length: 3 }, () => SYL[Math.floor(rndWords() * SYL.length)]).join("");
  return `${w}${i}`;
});

/** `n` of the table's made-up words, drawn by `rnd`. */
export const words = (rnd: () => number, n: number) =>
  Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" ");

/** The app, its pipeline, and whether its table was built by this run. */
export interface OptionsTable {
  t: TestApp;
  pipelineId: string;
  built: boolean;
  /** The upkeep pass that settled the table (settled()). */
  upkeepSeconds: number;
}

/** Opens the pipeline of `rows` chunks kept in `keep`, or makes one (kept there when given). */
export async function optionsTable(rows: number, keep?: string): Promise<OptionsTable> {
  const state = keep && join(keep, `options-table-${rows}.json`);
  const kept = state && existsSync(state) ? (JSON.parse(readFileSync(state, "utf8")) as { pipelineId: string }) : null;
  if (keep) mkdirSync(keep, { recursive: true });
  // No upkeep tick while the table is written behind the writer's back (see above).
  const t = await makeApp({
    queryRate: 1_000_000,
    queryBurst: 1_000_000,
    upkeepEveryMs: 3_600_000,
    ...(keep ? { dataDir: keep } : {}),
  });
  if (kept) return { t, pipelineId: kept.pipelineId, built: false, ...(await settled(t)) };
  const cookie = await t.signup();
  const created = await t.call("POST", "/api/rag/pipelines", {
    cookie,
    body: { name: "Options", embeddingModel: "builtin" },
  });
  const pipelineId: string = created.body.id;
  await build(t, pipelineId, rows);
  if (state) writeFileSync(state, JSON.stringify({ pipelineId }));
  return { t, pipelineId, built: true, ...(await settled(t)) };
}

/**
 * One upkeep pass, as a server's first after it starts: the table compacted (its batches'
 * fragments into one) and known to be wholly indexed, so searches take the paths of a
 * table at rest (vectors/tail-scores.ts). Returns its seconds.
 */
async function settled(t: TestApp): Promise<{ upkeepSeconds: number }> {
  const started = performance.now();
  await t.services.vectorStore.upkeep();
  return { upkeepSeconds: (performance.now() - started) / 1000 };
}

/** The sources (SQLite) and their chunk table (LanceDB), BATCH chunks at a time. */
async function build(t: TestApp, pipelineId: string, n: number): Promise<void> {
  const embedder = createEmbedder("builtin", { ...t.services.config, timeoutMs: 60_000, attempts: 1 });
  const collection = (await findCollectionById(t.services.db.reader, pipelineId))!;
  const name = VectorStore.tableName(pipelineId, collection.activeGeneration);
  const rnd = random(1);
  // Dates from the start of the day, so two runs of one day write the same metadata (`--answers`).
  const now = Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR;
  let table = null;
  for (let from = 0; from < n; from += BATCH) {
    const rows: ChunkRow[] = [];
    const docs: { row: ReturnType<typeof newDocumentRow>; content: string }[] = [];
    for (let d = from / PER_DOC; d < Math.min(n, from + BATCH) / PER_DOC; d++) {
      const metadata = { team: `t${d % 10}`, published: new Date(now - d * HOUR).toISOString() };
      const row = newDocumentRow({ collectionId: pipelineId, type: "text", name: `doc ${d}`, metadata }, now);
      const parts = Array.from({ length: PER_DOC }, () => words(rnd, 12));
      const content = parts.join("\n\n");
      docs.push({ row: { ...row, status: "ready", indexedAt: row.createdAt, chunkCount: PER_DOC }, content });
      let start = 0;
      const texts = parts.map((p) => analyseForIndex(p, collection.language, true));
      const vectors = await embedder.embed(texts.map((x) => x.embedded));
      parts.forEach((text, i) => {
        rows.push({
          id: `${row.id}:${i}`,
          documentId: row.id,
          chunkIndex: i,
          text,
          start,
          end: start + text.length,
          vector: vectors[i]!,
          metadata: encodeChunkMetadata(metadata, { sourceType: "text", externalId: null }),
          terms: texts[i]!.terms,
          grams: texts[i]!.grams,
        });
        start += text.length + 2;
      });
    }
    await t.services.db.atomically(async (tx) => {
      for (const { row, content } of docs) await insertDocument(tx, { ...row, contentLength: content.length }, content);
    });
    if (table) await table.add(rowsToArrow(rows));
    else table = await t.services.lance.createTable(name, rowsToArrow(rows));
    console.error(`  ${from + rows.length} chunks`);
  }
  const tb = table!;
  await ensureFtsIndex(tb);
  for (const c of ["document_id", "id"]) await tb.createIndex(c, { config: Index.btree() });
  await tb.createIndex("metadata_terms", { config: Index.labelList() });
  const ann = annIndexFor(n, vectorsDim(await tb.schema()));
  await tb.createIndex("vector", { config: ann.config, name: ann.name });
  const partial = (await tb.listIndices()).filter((i) => (i.numUnindexedRows ?? 0) > 0);
  tb.close();
  if (partial.length) throw new Error(`indexes missing rows: ${partial.map((i) => i.name).join(", ")}`);
}

function vectorsDim(schema: { fields: { name: string; type: { listSize?: number } }[] }): number {
  return schema.fields.find((f) => f.name === "vector")!.type.listSize!;
}
