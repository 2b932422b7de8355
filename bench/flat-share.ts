/**
 * IVF_FLAT probe shares on the first rows of the growth corpus: the table
 * bench/ann-growth.ts starts from (its rows, its queries, its topics for `corpusRows`),
 * indexed as ann.ts indexes it (√rows partitions, the short k-means), built BUILDS times
 * afresh, since each k-means places its partitions differently; recall@10 against exact
 * search (by id, and with ties: bench/recall.ts) and the mean latency at each share.
 *
 *   ./node_modules/.bin/bun bench/flat-share.ts 1000000 topical [rows=100000]
 *
 * The first argument is the corpus whose topics the rows follow (bench/query-corpus.ts).
 *
 * With the 1M corpus's topics the first 100,000 rows hold ten times the topics of a
 * 100,000-row corpus, each with fewer rows in more partitions (load 1–2, three builds,
 * 50 queries): recall@10 0.918–0.936 at 60%, 0.948–0.954 at 70%, 0.962–0.968 at 80%,
 * 11–15 ms each (ann-probes.ts, WIDE_SHARE).
 */
import { Index } from "@lancedb/lancedb";
import { embedBuiltin } from "../src/embed/builtin";
import { partitionsForRows } from "../src/vectors/ann";
import { openLance } from "../src/vectors/connection";
import { type ChunkRow, VectorStore } from "../src/vectors/store";
import { tempDir } from "../test/support/app";
import { flatTopK } from "./kept-corpus";
import { DIM, TOPICS, sentence } from "./query-corpus";
import { exactDistances, RecallTally, recallHits } from "./recall";
import { random } from "./support";

const ROWS = Number(process.argv[4] ?? 100_000);
const SHARES = (process.env.SHARES ?? "0.6,0.7,0.8").split(",").map(Number);
const BUILDS = Number(process.env.BUILDS ?? 3);
const QUERIES = 50;
const COLLECTION = "00000000-0000-4000-8000-0000000000b3";

const dir = tempDir("ragd-flat-share-");
const conn = await openLance(dir);
const vectorStore = new VectorStore(conn, { annThreshold: Number.MAX_SAFE_INTEGER });
const all = new Float32Array(ROWS * DIM);
const ids: string[] = new Array(ROWS);
// The rows bench/ann-growth.ts writes first, in the same order from the same seed.
const rnd = random(1);
let batch: ChunkRow[] = [];
for (let i = 0; i < ROWS; i++) {
  const d = Math.floor(i / 10);
  const text = sentence(rnd, 20, TOPICS[d % TOPICS.length]);
  const vector = embedBuiltin(text);
  all.set(vector, i * DIM);
  ids[i] = `d${d}:${i % 10}`;
  batch.push({ id: ids[i]!, documentId: `d${d}`, chunkIndex: i % 10, text, start: 0, end: 0, vector });
  if (batch.length === 10_000 || i === ROWS - 1) {
    await vectorStore.replaceDocuments(COLLECTION, 1, [], batch, { appendedAreNew: true });
    batch = [];
  }
}
const table = await conn.openTable(VectorStore.tableName(COLLECTION, 1));
const qrnd = random(7);
const texts = Array.from({ length: QUERIES }, () => sentence(qrnd, 3 + Math.floor(qrnd() * 4)));
const queries = texts.map(embedBuiltin);
const truth: Set<string>[] = [];
for (const q of queries) truth.push(await flatTopK(table, q, 10));
const distances = exactDistances(all, ids, DIM);
const partitions = partitionsForRows(ROWS);
console.log(`flat-share: ${ROWS.toLocaleString()} rows of the ${TOPICS.length}-topic corpus, ${partitions} partitions`);
try {
  for (let build = 1; build <= BUILDS; build++) {
    const config = Index.ivfFlat({
      numPartitions: partitions,
      distanceType: "cosine",
      sampleRate: 64,
      maxIterations: 10,
    });
    await table.createIndex("vector", { config, name: `vector_ivfflat_${ROWS}`, replace: true });
    const line: string[] = [];
    for (const share of SHARES) {
      const tally = new RecallTally(10);
      const t0 = performance.now();
      for (const [i, q] of queries.entries()) {
        const rows = (await table
          .vectorSearch(q)
          .distanceType("cosine")
          .select(["document_id", "chunk_index", "_distance"])
          .limit(10)
          .nprobes(Math.ceil(partitions * share))
          .toArray()) as { document_id: string; chunk_index: number }[];
        const got = rows.map((r) => `${r.document_id}:${r.chunk_index}`);
        tally.add(recallHits(got, truth[i]!, distances(q), 10));
      }
      line.push(`${share * 100}% ${tally.format()}, ${((performance.now() - t0) / QUERIES).toFixed(1)} ms`);
    }
    console.log(`build ${build}: ${line.join(" | ")}`);
  }
} finally {
  table.close();
  vectorStore.close();
  conn.close();
  (await import("node:fs")).rmSync(dir, { recursive: true, force: true });
}
