/**
 * Keyword, hybrid and vector queries on the options table (bench/options-table.ts: made-up
 * words, so each query gets terms, other stems and grams, several full-text clauses;
 * docs/notes/2026-12-07-keyword-clauses.md), optionally beside another version of the
 * code in the same process:
 *
 *   ./node_modules/.bin/bun bench/keyword-clauses.ts [--rows 1000000] [--queries 40] [--keep DIR] [--before DIR]
 *
 * `--before` is a checkout of the code to compare with (its node_modules and generated
 * files in place); its Searcher and VectorStore run over this run's connection and store,
 * each query asked of both in turn. Printed per mode: p50 ms of each version, how many
 * answers differ (ids and scores to 5 decimals) and how many differ in their scores; and
 * vector mode's recall@10 against an exact search of the table (a hit scoring as much as
 * the exact 10th counts as found).
 */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { findCollectionById } from "../src/db/repo/collections";
import { createEmbedder } from "../src/embed/index";
import { queryText } from "../src/retrieval/query-text";
import { Searcher } from "../src/retrieval/searcher";
import { VectorStore } from "../src/vectors/store";
import { optionsTable, words } from "./options-table";
import { percentile, random } from "./support";

const { values: args } = parseArgs({
  options: {
    rows: { type: "string", default: "1000000" },
    queries: { type: "string", default: "40" },
    keep: { type: "string" },
    before: { type: "string" },
  },
});
const { t, pipelineId } = await optionsTable(Number(args.rows), args.keep);
const s = t.services;
const collection = (await findCollectionById(s.db.reader, pipelineId))!;
const side = (S: typeof Searcher, V: typeof VectorStore) => new S(s.db, new V(s.lance, {}), s.config);
const sides: Record<string, Searcher> = { now: side(Searcher, VectorStore) };
if (args.before) {
  const dir = resolve(args.before);
  const S = (await import(join(dir, "src/retrieval/searcher.ts"))).Searcher as typeof Searcher;
  const V = (await import(join(dir, "src/vectors/store.ts"))).VectorStore as typeof VectorStore;
  sides.before = side(S, V);
}
const embedder = createEmbedder("builtin", { ...s.config, timeoutMs: 60_000, attempts: 1 });
const table = await s.lance.openTable(VectorStore.tableName(pipelineId, collection.activeGeneration));

type Hit = { score: number; metadata: { sourceId: string; chunkIndex: number } };
const gist = (hits: Hit[]) => hits.map((h) => `${h.metadata.sourceId}:${h.metadata.chunkIndex}:${h.score.toFixed(5)}`);
const rnd = random(5);
const texts = Array.from({ length: Number(args.queries) }, (_, i) => words(rnd, 1 + (i % 3)));

/** The exact 10 nearest rows of the query's vector, as `doc:chunk`, and the 10th's score. */
async function exactTen(query: string) {
  const [v] = await embedder.embed([queryText(query, collection.language, "builtin").embedded]);
  const rows = await table
    .vectorSearch(v!)
    .distanceType("cosine")
    .bypassVectorIndex()
    .select(["document_id", "chunk_index", "_distance"])
    .limit(10)
    .toArray();
  return { ids: new Set(rows.map((r) => `${r.document_id}:${r.chunk_index}`)), tenth: 1 - rows.at(-1)!._distance };
}

for (const mode of ["keyword", "hybrid", "vector"] as const) {
  const ms: Record<string, number[]> = {};
  const recall: Record<string, number[]> = {};
  let differ = 0;
  let scoresDiffer = 0;
  for (const query of texts) {
    const exact = mode === "vector" ? await exactTen(query) : null;
    const answers: Record<string, string[]> = {};
    for (const [who, searcher] of Object.entries(sides)) {
      const t0 = performance.now();
      const hits = (await searcher.search(collection, { query, topK: 10, mode })).results as Hit[];
      (ms[who] ??= []).push(performance.now() - t0);
      answers[who] = gist(hits);
      if (exact) {
        const found = hits.filter(
          (h) => exact.ids.has(`${h.metadata.sourceId}:${h.metadata.chunkIndex}`) || h.score >= exact.tenth - 1e-6,
        );
        (recall[who] ??= []).push(found.length / 10);
      }
    }
    if (answers.before) {
      const scores = (a: string[]) => a.map((x) => x.split(":").at(-1)).join();
      if (answers.before.join() !== answers.now!.join()) differ++;
      if (scores(answers.before) !== scores(answers.now!)) scoresDiffer++;
    }
  }
  const p50 = Object.entries(ms).map(([who, m]) => `${who} p50 ${percentile(m, 50).toFixed(1)} ms`);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const rec = Object.entries(recall).map(([who, r]) => `${who} recall@10 ${mean(r).toFixed(3)}`);
  const diff = args.before ? [`answers differ ${differ}, scores differ ${scoresDiffer} of ${texts.length}`] : [];
  console.log(`${mode}: ${[...p50, ...rec, ...diff].join("; ")}`);
}
await t.close();
