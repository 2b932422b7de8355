/**
 * What hybrid search pays while a table holds rows outside its full-text index (the
 * hours' first seconds after a write, until upkeep catches up): the keyword list read
 * deeper (keyword-hits.ts, leftOutScores) against the look-ups narrowed to each chunk it
 * replaced, which score such rows by the narrowed rows' statistics. On a copy of a table
 * bench/options-table.ts kept (`--keep DIR` of bench/query-options.ts), `--tail N` rows of
 * the same made-up words are added outside the index; each query runs both ways in turn:
 *
 *   ./node_modules/.bin/bun bench/tail-lookups.ts --dir COPY-OF-KEPT-DIR [--tail 2000] [--queries 40]
 *
 * Prints p50 and p95 of each, and in how many queries the answers' scores differ.
 */
import { connect } from "@lancedb/lancedb";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createEmbedder } from "../src/embed/index";
import { queryText } from "../src/retrieval/query-text";
import { analyseForIndex } from "../src/text/analyze";
import { rowsToArrow } from "../src/vectors/chunk-arrow";
import { searchTable, type StoredHit } from "../src/vectors/search";
import type { ChunkRow } from "../src/vectors/tables";
import { words } from "./options-table";
import { percentile, random } from "./support";

const { values: args } = parseArgs({
  options: {
    dir: { type: "string" },
    tail: { type: "string", default: "2000" },
    queries: { type: "string", default: "40" },
  },
});
const lance = join(args.dir!, "lance");
const conn = await connect(lance, { readConsistencyInterval: 0 });
const name = readdirSync(lance)
  .find((f) => f.endsWith(".lance"))!
  .replace(/\.lance$/, "");
const table = await conn.openTable(name);
const embedder = createEmbedder("builtin", { openaiUrl: null } as never);
const rnd = random(17);

const tail: ChunkRow[] = [];
for (let i = 0; i < Number(args.tail); i++) {
  const text = words(rnd, 12);
  const [vector] = await embedder.embed([text]);
  const { terms, grams } = analyseForIndex(text, "auto", true);
  tail.push({
    id: `tail-${i}:0`,
    documentId: `tail-${i}`,
    chunkIndex: 0,
    text,
    start: 0,
    end: text.length,
    vector: vector!,
    terms,
    grams,
  } as ChunkRow);
}
if (tail.length) await table.add(rowsToArrow(tail));
const stats = (await table.listIndices()).filter((i) => i.indexType === "FTS");
console.error(`tail of ${args.tail} rows added`, stats.map((s) => s.name).join(", "));

const ms = { narrowed: [] as number[], deeper: [] as number[] };
let differ = 0;
for (let q = 0; q < Number(args.queries) + 3; q++) {
  const query = words(rnd, 2);
  const text = queryText(query, "auto", "builtin");
  const [vector] = await embedder.embed([text.embedded]);
  const req = {
    mode: "hybrid" as const,
    text: query,
    vector: vector!,
    topK: 10,
    analysed: text.analysed,
    hybridAlpha: 0.1,
  };
  const answers: Record<string, StoredHit[]> = {};
  for (const way of q % 2 ? (["deeper", "narrowed"] as const) : (["narrowed", "deeper"] as const)) {
    const s = performance.now();
    answers[way] = await searchTable(table, req, null, { textTail: way === "deeper" });
    if (q >= 3) ms[way].push(performance.now() - s);
  }
  const score = (h: StoredHit[]) => h.map((x) => x.score.toFixed(6)).join();
  if (q >= 3 && score(answers.narrowed!) !== score(answers.deeper!)) differ++;
}
for (const way of ["narrowed", "deeper"] as const)
  console.log(`${way}: p50 ${percentile(ms[way], 50).toFixed(1)} ms, p95 ${percentile(ms[way], 95).toFixed(1)} ms`);
console.log(`answers' scores differ in ${differ} of ${args.queries} queries`);
