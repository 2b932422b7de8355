/**
 * What each query option costs (docs/API.md, Query options), in process through the
 * query service (the path of POST /api/rag/query after authentication), on one pipeline
 * of the built-in embedder with real SQLite and LanceDB:
 *
 *   ./node_modules/.bin/bun bench/query-options.ts [--rows 100000] [--queries 40] [--mode hybrid] [--answers FILE]
 *
 * Sources are stored through the named queries as ready text sources (ten chunks each,
 * source d with metadata `{team: "t<d % 10>", published: <a date d hours ago>}`), and the
 * chunk table is written directly with the built-in embedder's vectors and the full-text,
 * b-tree, label-list and ANN indexes upkeep builds (as bench/filter.ts does), not ingested.
 * The server's periodic upkeep is off meanwhile: a tick during the build indexed the
 * first batches' text, and the build then left the rest outside the full-text index (its
 * writes bypass the writer, so upkeep never refreshed them), so that every keyword search
 * read 60,000 unindexed rows and hybrid queries took 0.5–2 s at 100,000 chunks. The
 * build checks that every index covers every row.
 *
 * Each option is timed against the same query without it, query by query in turn (who
 * goes first alternates): p50 of `queries` queries, topK 10, and the ratio of the two p50s.
 * Facets run with a filter matching 10 % of the chunks, against that filter without
 * facets. Facet counts are cached per table version, filter and keys: they are timed as
 * cached (one filter for every query) and uncached (a key that differs per query, so each
 * query counts again).
 *
 * `--answers FILE` writes what each query answered with each option (result ids, scores,
 * contexts, facets) as JSON, so two versions of the code can be checked to answer alike.
 */
import { Index } from "@lancedb/lancedb";
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { findCollectionById } from "../src/db/repo/collections";
import { insertDocument } from "../src/db/repo/documents";
import { createEmbedder } from "../src/embed/index";
import { newDocumentRow } from "../src/ingest/tasks/queue";
import type { SearchRequest } from "../src/retrieval/request";
import { analyseForIndex } from "../src/text/analyze";
import { annIndexFor } from "../src/vectors/ann";
import { rowsToArrow } from "../src/vectors/chunk-arrow";
import { encodeChunkMetadata } from "../src/vectors/meta-index";
import type { ChunkRow } from "../src/vectors/tables";
import { VectorStore } from "../src/vectors/store";
import { ensureFtsIndex } from "../src/vectors/writer";
import { makeApp } from "../test/support/app";
import { percentile, random } from "./support";

const { values: args } = parseArgs({
  options: {
    rows: { type: "string", default: "100000" },
    queries: { type: "string", default: "40" },
    mode: { type: "string", default: "hybrid" },
    answers: { type: "string" },
  },
});
const N = Number(args.rows);
const QUERIES = Number(args.queries);
const MODE = args.mode as SearchRequest["mode"];
const PER_DOC = 10;
const BATCH = 10_000;
const HOUR = 3_600_000;

const rndWords = random(3);
const SYL = "ka ro mi tan vel sor qu ix len dra po ne ul ga thi ber zo fen mar lit".split(" ");
const WORDS = Array.from({ length: 2000 }, (_, i) => {
  const w = Array.from({ length: 3 }, () => SYL[Math.floor(rndWords() * SYL.length)]).join("");
  return `${w}${i}`;
});
const words = (rnd: () => number, n: number) =>
  Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" ");

// No upkeep tick while the table is written behind the writer's back (see above).
const t = await makeApp({ queryRate: 1_000_000, queryBurst: 1_000_000, upkeepEveryMs: 3_600_000 });
const cookie = await t.signup();
const created = await t.call("POST", "/api/rag/pipelines", {
  cookie,
  body: { name: "Options", embeddingModel: "builtin" },
});
const pipelineId: string = created.body.id;
const embedder = createEmbedder("builtin", { ...t.services.config, timeoutMs: 60_000, attempts: 1 });

/** The sources (SQLite) and their chunk table (LanceDB), BATCH chunks at a time. */
async function build(): Promise<void> {
  const collection = (await findCollectionById(t.services.db.reader, pipelineId))!;
  const name = VectorStore.tableName(pipelineId, collection.activeGeneration);
  const rnd = random(1);
  // Dates from the start of the day, so two runs of one day write the same metadata (`--answers`).
  const now = Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR;
  let table = null;
  for (let from = 0; from < N; from += BATCH) {
    const rows: ChunkRow[] = [];
    const docs: { row: ReturnType<typeof newDocumentRow>; content: string }[] = [];
    for (let d = from / PER_DOC; d < Math.min(N, from + BATCH) / PER_DOC; d++) {
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
  const ann = annIndexFor(N, vectorsDim(await tb.schema()));
  await tb.createIndex("vector", { config: ann.config, name: ann.name });
  const partial = (await tb.listIndices()).filter((i) => (i.numUnindexedRows ?? 0) > 0);
  tb.close();
  if (partial.length) throw new Error(`indexes missing rows: ${partial.map((i) => i.name).join(", ")}`);
}

function vectorsDim(schema: { fields: { name: string; type: { listSize?: number } }[] }): number {
  return schema.fields.find((f) => f.name === "vector")!.type.listSize!;
}

/** What each option's queries answered, by label (`--answers`). */
const answers: Record<string, unknown[]> = {};

/** What of an answer two versions of the code must agree on. */
function gist(a: Awaited<ReturnType<typeof t.services.queries.query>>): unknown {
  const { results, facets } = a as {
    results: { score: number; metadata: object; context?: object }[];
    facets?: object;
  };
  const hits = results.map((r) => {
    const { sourceName, chunkIndex } = r.metadata as { sourceName: string; chunkIndex: number };
    return { sourceName, chunkIndex, score: r.score.toFixed(6), context: r.context };
  });
  return { hits, facets };
}

/** p50 (ms) of each body's queries, asked in turn query by query, the first of the pair alternating. */
async function time(label: string, bodies: SearchRequest[]): Promise<number[]> {
  const collection = (await findCollectionById(t.services.db.reader, pipelineId))!;
  const rnd = random(7);
  const texts = Array.from({ length: QUERIES + 3 }, () => words(rnd, 2));
  // An `uncached` facet key differs per query (and names no key), so the counts are never cached.
  const ask = (body: SearchRequest, q: string, i: number) => {
    const facets = body.facets?.map((k) => (k === "uncached" ? `uncached${i}` : k));
    return t.services.queries.query(collection, { ...body, facets, query: q, topK: 10, mode: MODE });
  };
  for (const [i, q] of texts.slice(0, 3).entries()) for (const b of bodies) await ask(b, q, -1 - i);
  const ms = bodies.map(() => [] as number[]);
  for (const [i, q] of texts.slice(3).entries()) {
    const order = bodies.map((_, k) => k);
    for (const k of i % 2 ? order.reverse() : order) {
      const s = performance.now();
      const answer = await ask(bodies[k]!, q, i);
      ms[k]!.push(performance.now() - s);
      if (args.answers && k === 1) (answers[label] ??= []).push(gist(answer));
    }
  }
  return ms.map((m) => percentile(m, 50));
}

const t0 = performance.now();
await build();
console.error(`built ${N} chunks in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const TEN_PERCENT = { filter: { metadata: { team: "t3" } } };
const cases: [string, SearchRequest, SearchRequest][] = [
  ["expand {chars: 300}", { query: "" }, { query: "", expand: { chars: 300 } }],
  ["expand {chunks: 1}", { query: "" }, { query: "", expand: { chunks: 1 } }],
  ["highlights", { query: "" }, { query: "", highlights: true }],
  ["groupBy source", { query: "" }, { query: "", groupBy: "source" }],
  ["groupBy source, perSource 3", { query: "" }, { query: "", groupBy: "source", perSource: 3 }],
  [
    "facets [team, published], 10 % filter, cached",
    { query: "", ...TEN_PERCENT },
    { query: "", ...TEN_PERCENT, facets: ["team", "published"] },
  ],
  [
    "facets [team, published], 10 % filter, uncached",
    { query: "", ...TEN_PERCENT },
    { query: "", ...TEN_PERCENT, facets: ["team", "published", "uncached"] },
  ],
  ["facets [team], no filter, uncached", { query: "" }, { query: "", facets: ["team", "uncached"] }],
  ["boost match", { query: "" }, { query: "", boost: { match: { team: "t3" } } }],
  [
    "boost recency (metadata date)",
    { query: "" },
    { query: "", boost: { recency: { key: "published", halfLifeDays: 7 } } },
  ],
  ["boost recency (indexedAt)", { query: "" }, { query: "", boost: { recency: { halfLifeDays: 7 } } }],
];
console.log(`p50 ms of ${QUERIES} ${MODE} queries, topK 10, ${N} chunks (built-in embedder)`);
console.log("| option | without | with | ratio |\n|---|---|---|---|");
for (const [label, without, withIt] of cases) {
  const [a, b] = await time(label, [without, withIt]);
  console.log(`| ${label} | ${a!.toFixed(1)} | ${b!.toFixed(1)} | ×${(b! / a!).toFixed(2)} |`);
}
if (args.answers) writeFileSync(args.answers, JSON.stringify(answers, null, 1));
await t.close();
