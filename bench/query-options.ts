/**
 * What each query option costs (docs/API.md, Query options), in process through the
 * query service (the path of POST /api/rag/query after authentication), on one pipeline
 * of the built-in embedder with real SQLite and LanceDB:
 *
 *   ./node_modules/.bin/bun bench/query-options.ts [--rows 100000] [--queries 40] [--mode hybrid] [--answers FILE]
 *     [--keep DIR] [--only TEXT]
 *
 * The table is bench/options-table.ts's (built, or with `--keep DIR` reopened from DIR when
 * an earlier run kept one of this size there).
 *
 * Each option is timed against the same query without it, query by query in turn (who
 * goes first alternates): p50 of `queries` queries, topK 10, and the ratio of the two p50s.
 * Facets run with a filter matching 10 % of the chunks, against that filter without
 * facets. Facet counts are cached per table version, filter and keys: they are timed as
 * cached (one filter for every query) and uncached (a key that differs per query, so each
 * query counts again).
 *
 * `--only TEXT` times only the options whose label contains TEXT (e.g. `group`).
 *
 * `--answers FILE` writes what each query answered with each option (result ids, scores,
 * contexts, facets) as JSON, so two versions of the code can be checked to answer alike.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { findCollectionById } from "../src/db/repo/collections";
import type { SearchRequest } from "../src/retrieval/request";
import { optionsTable, words } from "./options-table";
import { percentile, random } from "./support";

const { values: args } = parseArgs({
  options: {
    rows: { type: "string", default: "100000" },
    queries: { type: "string", default: "40" },
    mode: { type: "string", default: "hybrid" },
    answers: { type: "string" },
    keep: { type: "string" },
    only: { type: "string" },
  },
});
const N = Number(args.rows);
const QUERIES = Number(args.queries);
const MODE = args.mode as SearchRequest["mode"];

const t0 = performance.now();
const { t, pipelineId, built, upkeepSeconds } = await optionsTable(N, args.keep);
const took = ((performance.now() - t0) / 1000).toFixed(1);
console.error(
  `${built ? "built" : "reopened"} ${N} chunks in ${took} s (its upkeep pass ${upkeepSeconds.toFixed(1)} s)`,
);

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
for (const [label, without, withIt] of cases.filter(([l]) => l.includes(args.only ?? ""))) {
  const [a, b] = await time(label, [without, withIt]);
  console.log(`| ${label} | ${a!.toFixed(1)} | ${b!.toFixed(1)} | ×${(b! / a!).toFixed(2)} |`);
}
if (args.answers) writeFileSync(args.answers, JSON.stringify(answers, null, 1));
await t.close();
