/**
 * What a full-text tail costs the searches of a table: vector, keyword and hybrid p50 /
 * p90 / max over 40 queries in process (VectorStore.search, as the server asks it), on a
 * table bench/ten-million.ts kept, first caught up, then with tails of 2,500 to 20,000
 * rows written through the store (so its writer counts them, as the server's does).
 *
 *   bun bench/tail-cost.ts --dir DIR   (a --dir of bench/ten-million.ts; its table grows by 20,000 rows)
 *
 * Measured (docs/notes/2026-12-07-ten-million.md), 100,000 indexed rows of 20-word chunks,
 * hybrid p90: 43 ms with no tail, 253 at 5,000 tail rows, 552 at 20,000 (667 and 2,084 when
 * a tail row's keyword score and each clause's deeper list were read round by round);
 * LanceDB's own flat scan of such a tail costs about 1.2 µs a row.
 */
import { parseArgs } from "node:util";
import { queryText } from "../src/retrieval/query-text";
import { analyseForIndex } from "../src/text/analyze";
import { openLance } from "../src/vectors/connection";
import { type ChunkRow, VectorStore } from "../src/vectors/store";
import { largeCorpus } from "./large-corpus";
import { percentile, random } from "./support";

const { values: args } = parseArgs({ options: { dir: { type: "string" } } });
if (!args.dir) throw new Error("--dir: a data directory bench/ten-million.ts kept");
const { pipelineId } = JSON.parse(await Bun.file(`${args.dir}/bench-state.json`).text());
const conn = await openLance(args.dir);
const store = new VectorStore(conn);
const rows = await store.countRows(pipelineId, 1);
const corpus = largeCorpus(rows);
const rnd = random(5);
const queries = Array.from({ length: 40 }, () => corpus.query(rnd));

async function timed(mode: "vector" | "keyword" | "hybrid"): Promise<string> {
  const ms: number[] = [];
  for (const q of queries) {
    const { analysed } = queryText(q, "auto", "bench-dense");
    const t0 = performance.now();
    await store.search(pipelineId, 1, {
      mode,
      text: q,
      vector: Float32Array.from(corpus.vector(q)),
      topK: 10,
      vectorKind: "model",
      analysed,
    });
    ms.push(performance.now() - t0);
  }
  const f = (x: number) => x.toFixed(1);
  return `${mode} ${f(percentile(ms, 50))} / ${f(percentile(ms, 90))} / ${f(Math.max(...ms))}`;
}

const report = async (label: string) => {
  for (const mode of ["vector", "keyword", "hybrid"] as const) await timed(mode); // warm
  console.log(
    `${label}: ${await timed("vector")} | ${await timed("keyword")} | ${await timed("hybrid")} ms (p50 / p90 / max)`,
  );
};

await store.upkeep();
await report(`${rows.toLocaleString()} rows, no tail`);
let next = 10_000_000; // document numbers no run of bench/ten-million.ts writes
for (const [docs, tail] of [
  [250, 2_500],
  [250, 5_000],
  [500, 10_000],
  [1_000, 20_000],
]) {
  const written: ChunkRow[] = [];
  for (let d = next; d < next + docs!; d++) {
    corpus
      .document(d)
      .content.split("\n\n")
      .forEach((text, i) => {
        const { terms, grams } = analyseForIndex(text, "auto", false);
        const vector = Float32Array.from(corpus.vector(text));
        written.push({
          id: `t${d}:${i}`,
          documentId: `t${d}`,
          chunkIndex: i,
          text,
          start: 0,
          end: text.length,
          vector,
          terms,
          grams,
        });
      });
  }
  next += docs!;
  await store.replaceDocuments(pipelineId, 1, [], written, { appendedAreNew: true });
  await report(`tail ${tail!.toLocaleString()}`);
}
store.close();
conn.close();
