/**
 * What a grouped query costs against a plain one, for two versions of the search code in
 * one process, on one table (docs/notes/2026-12-06-query-options.md):
 *
 *   ./node_modules/.bin/bun bench/per-source.ts --before DIR [--rows 100000] [--queries 60] [--keep DIR]
 *
 * `--before` is a checkout of the code to compare with (its node_modules in place); its
 * Searcher and VectorStore are imported beside this tree's, both over this run's LanceDB
 * connection and SQLite store. The table is bench/options-table.ts's (`--keep` reuses a
 * kept one). For each query (two made-up words, hybrid, topK 10) each version answers it
 * plain, grouped (`groupBy: "source"`) and grouped with `perSource: 3`, the two versions
 * in turn for each kind, the first alternating. Printed: the p50 of each, the median of the
 * per-query ratios group/plain for each version and new/old for each kind, the p50 of each
 * version's table searches (plain, the grouped pool, perSource's second look after it),
 * how many grouped answers differ
 * (source, chunk or score past 1e-6), and the load average at both ends.
 */
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { findCollectionById } from "../src/db/repo/collections";
import type { SearchRequest } from "../src/retrieval/request";
import { Searcher } from "../src/retrieval/searcher";
import { closeServices } from "../src/services";
import { VectorStore } from "../src/vectors/store";
import { optionsTable, words } from "./options-table";
import { percentile, random } from "./support";

const { values: args } = parseArgs({
  options: {
    before: { type: "string" },
    rows: { type: "string", default: "100000" },
    queries: { type: "string", default: "60" },
    keep: { type: "string" },
  },
});
if (!args.before) throw new Error("--before DIR: a checkout of the code to compare with");
const QUERIES = Number(args.queries);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

const { t, pipelineId } = await optionsTable(Number(args.rows), args.keep);
const s = t.services;
const collection = (await findCollectionById(s.db.reader, pipelineId))!;
const before = resolve(args.before);
const Old = {
  Searcher: (await import(join(before, "src/retrieval/searcher.ts"))).Searcher as typeof Searcher,
  VectorStore: (await import(join(before, "src/vectors/store.ts"))).VectorStore as typeof VectorStore,
};

/** One version's searcher, and the times of the current query's table searches. */
function side(S: typeof Searcher, V: typeof VectorStore) {
  const store = new V(s.lance, {});
  const searches: number[] = [];
  const search = store.search.bind(store);
  store.search = async (...a) => {
    const t0 = performance.now();
    const r = await search(...a);
    searches.push(performance.now() - t0);
    return r;
  };
  return { searcher: new S(s.db, store, s.config), searches };
}
const sides = { old: side(Old.Searcher, Old.VectorStore), new: side(Searcher, VectorStore) };
const kinds: Record<string, Partial<SearchRequest>> = {
  plain: {},
  group1: { groupBy: "source" },
  group3: { groupBy: "source", perSource: 3 },
};
type Side = keyof typeof sides;
type Kind = keyof typeof kinds;
const ms = { old: {}, new: {} } as Record<Side, Record<Kind, number[]>>;
/** Each query's table searches (ms), in order: the pool, then the second look. */
const stages = { old: {}, new: {} } as Record<Side, Record<Kind, number[][]>>;
let differing = 0;

type Hit = { score: number; metadata: { sourceId: string; chunkIndex: number } };
const same = (a: Hit[], b: Hit[]) =>
  a.length === b.length &&
  a.every(
    (h, i) =>
      h.metadata.sourceId === b[i]!.metadata.sourceId &&
      h.metadata.chunkIndex === b[i]!.metadata.chunkIndex &&
      Math.abs(h.score - b[i]!.score) <= 1e-6,
  );

const rnd = random(11);
const texts = Array.from({ length: QUERIES + 3 }, () => words(rnd, 2));
console.log(`load average at the start: ${load()}`);
for (const [i, query] of texts.entries()) {
  for (const kind of Object.keys(kinds)) {
    const order: Side[] = i % 2 ? ["new", "old"] : ["old", "new"];
    const answers: Partial<Record<Side, Hit[]>> = {};
    for (const who of order) {
      const { searcher, searches } = sides[who];
      searches.length = 0;
      const body = { query, topK: 10, mode: "hybrid" as const, ...kinds[kind] };
      const t0 = performance.now();
      answers[who] = (await searcher.search(collection, body)).results as Hit[];
      if (i < 3) continue; // warming up
      ((ms[who][kind] ??= []) as number[]).push(performance.now() - t0);
      ((stages[who][kind] ??= []) as number[][]).push([...searches]);
    }
    if (i >= 3 && kind !== "plain" && !same(answers.old!, answers.new!)) {
      differing++;
      const show = (hits: Hit[]) => hits.map((h) => `${h.metadata.sourceId}:${h.metadata.chunkIndex} ${h.score}`);
      console.error(`${kind} "${query}" differs:`, { old: show(answers.old!), new: show(answers.new!) });
    }
  }
}
console.log(`load average at the end: ${load()}`);

const median = (xs: number[]) => percentile(xs, 50);
const ratios = (a: number[], b: number[]) => median(a.map((x, i) => x / b[i]!));
console.log(`${QUERIES} hybrid queries, topK 10, ${args.rows} chunks; p50 ms and medians of per-query ratios`);
console.log("| kind | old p50 | new p50 | new/old | old ÷ plain | new ÷ plain |\n|---|---|---|---|---|---|");
for (const kind of Object.keys(kinds)) {
  const [o, n] = [ms.old[kind]!, ms.new[kind]!];
  const cells = [median(o), median(n), ratios(n, o), ratios(o, ms.old.plain!), ratios(n, ms.new.plain!)];
  console.log(`| ${kind} | ${cells.map((x, j) => (j < 2 ? x.toFixed(1) : `×${x.toFixed(2)}`)).join(" | ")} |`);
}
const search = (who: Side, kind: Kind, n: number) => median(stages[who][kind]!.map((x) => x[n] ?? 0)).toFixed(1);
for (const who of ["old", "new"] as const)
  console.log(
    `${who}: p50 ms of the table searches: plain ${search(who, "plain", 0)}, group1 ${search(who, "group1", 0)},`,
    `group3 pool ${search(who, "group3", 0)} and second look ${search(who, "group3", 1)}`,
  );
console.log(`grouped answers that differ: ${differing} of ${2 * QUERIES}`);
await closeServices(s);
