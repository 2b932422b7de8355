/**
 * A table growing from 100,000 to 1,000,000 rows while one client queries it: the
 * recall and latency it keeps, and when its ANN index is replaced.
 *
 *   ./node_modules/.bin/bun bench/ann-growth.ts 1000000 [topical|dense] [step=100000]
 *
 * Rows are the chunks of bench/query-corpus.ts (built-in vectors, or bench/dense.ts's
 * with `dense`), all made first, then written in process through ragd's VectorStore in
 * batches of 10,000, as ingestion writes them. Upkeep runs as the server runs it (services.ts): a full
 * pass (upkeep(), which also starts any index build in the background, trained in a
 * child process as the server trains it: index-build.ts) when a step
 * has been written, the full-text tail refresh after each batch. A client asks one
 * vector query after another the whole time, through the same store; every second
 * the table's vector indexes are read, and a change is printed with the latency of
 * the queries since the last change. After each step the client pauses while the
 * bench computes exact answers for recall@10 (20 queries).
 */
import { loadavg } from "node:os";
import { embedBuiltin } from "../src/embed/builtin";
import { vectorIndexes } from "../src/vectors/ann";
import { openLance } from "../src/vectors/connection";
import { childProcess } from "../src/vectors/index-build";
import { VectorStore, type ChunkRow } from "../src/vectors/store";
import { tempDir } from "../test/support/app";
import { denseSpace } from "./dense";
import { flatTopK } from "./kept-corpus";
import { DIM, N, SHAPE, TOPICS, sentence } from "./query-corpus";
import { exactDistances, RecallTally, recallHits } from "./recall";
import { percentile, random } from "./support";

const START = 100_000;
const STEP = Number(process.argv[4] ?? 100_000);
const BATCH = 10_000;
/** 50, as bench/query-http.ts: with 20, two runs of one table differed by 0.03. */
const RECALL_QUERIES = Number(process.env.RECALL_QUERIES ?? 50);
const COLLECTION = "00000000-0000-4000-8000-0000000000b2";

const space = SHAPE === "dense" ? denseSpace(DIM, TOPICS.length) : null;
const embedQuery = (text: string) => (space ? space.query(text) : embedBuiltin(text));
/** Probed as the server probes a pipeline's vectors of this kind (ann-probes.ts). */
const vectorKind = space ? "model" : "builtin";

const dir = tempDir("ragd-bench-growth-");
const conn = await openLance(dir);
const log = (msg: string, f?: object) => console.error(`  ${msg} ${JSON.stringify(f ?? {})}`);
const vectorStore = new VectorStore(conn, { log, indexBuilder: childProcess(dir) });
const all = new Float32Array(N * DIM);
const ids: string[] = new Array(N);
let rows = 0;
const rnd = random(1);

// Every row is made before the run: embedding on this thread would hold up the client's queries,
// where the server embeds in worker threads.
const texts: string[] = new Array(N);
for (let i = 0; i < N; i++) {
  const d = Math.floor(i / 10);
  texts[i] = sentence(rnd, 20, TOPICS[d % TOPICS.length]);
  all.set(space ? space.chunk(d, rnd) : embedBuiltin(texts[i]!), i * DIM);
  ids[i] = `d${d}:${i % 10}`;
  if (i % 100_000 === 99_999) console.error(`  made ${(i + 1).toLocaleString()} rows`);
}

async function write(upTo: number): Promise<void> {
  for (; rows < upTo; ) {
    const batch: ChunkRow[] = [];
    for (const end = Math.min(upTo, rows + BATCH); rows < end; rows++) {
      const [doc, chunk] = ids[rows]!.split(":");
      const vector = all.subarray(rows * DIM, (rows + 1) * DIM);
      batch.push({
        id: ids[rows]!,
        documentId: doc!,
        chunkIndex: Number(chunk),
        text: texts[rows]!,
        start: 0,
        end: 0,
        vector,
      });
    }
    await vectorStore.replaceDocuments(COLLECTION, 1, [], batch, { appendedAreNew: true });
    void vectorStore.catchUpTails().catch((err) => log("tail refresh failed", { error: String(err) }));
  }
}

const table = VectorStore.tableName(COLLECTION, 1);
const servingIndex = async () => {
  const t = await conn.openTable(table);
  const names = vectorIndexes(await t.listIndices()).map((i) => i.name);
  t.close();
  return names.join("+") || "none";
};

// The client: one query after another, latencies kept with the index that served them.
const qrnd = random(7);
// The texts go with the vectors, as the searcher sends them: built-in tables join lexical candidates.
const queryTexts = Array.from({ length: 200 }, () => sentence(qrnd, 3 + Math.floor(qrnd() * 4)));
const queries = queryTexts.map(embedQuery);
let paused = false;
let stopped = false;
let lat: number[] = [];
/** Every latency of the run: the watcher starts `lat` anew when the index changes, which may be mid-step. */
const every: number[] = [];
const client = (async () => {
  for (let i = 0; !stopped; i++) {
    if (paused) {
      await Bun.sleep(20);
      continue;
    }
    const t0 = performance.now();
    await vectorStore.search(COLLECTION, 1, {
      mode: "vector",
      text: queryTexts[i % queries.length]!,
      vector: queries[i % queries.length]!,
      topK: 10,
      vectorKind,
    });
    lat.push(performance.now() - t0);
    every.push(lat[lat.length - 1]!);
  }
})();
const stats = (xs: number[]) =>
  xs.length
    ? `p50 ${percentile(xs, 50).toFixed(1)} ms, p95 ${percentile(xs, 95).toFixed(1)} ms, max ${Math.max(...xs).toFixed(0)} ms (${xs.length} queries)`
    : "no queries";

let index = "none";
const started = performance.now();
const clock = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
const watcher = setInterval(async () => {
  const now = await servingIndex().catch(() => index);
  if (now === index) return;
  console.log(`[${clock()}] ${rows.toLocaleString()} rows: index ${index} → ${now}; before the change ${stats(lat)}`);
  index = now;
  lat = [];
}, 1000);

const distances = exactDistances(all, ids, DIM);

async function recall(): Promise<string> {
  paused = true;
  const tally = new RecallTally(10);
  const t = await conn.openTable(table);
  for (const [i, q] of queries.slice(0, RECALL_QUERIES).entries()) {
    const truth = await flatTopK(t, q, 10);
    const text = queryTexts[i]!;
    const hits = await vectorStore.search(COLLECTION, 1, { mode: "vector", text, vector: q, topK: 10, vectorKind });
    tally.add(
      recallHits(
        hits.map((h) => `${h.documentId}:${h.chunkIndex}`),
        truth,
        distances(q),
        10,
      ),
    );
  }
  t.close();
  paused = false;
  return tally.format();
}

try {
  console.log(
    `ann-growth: ${SHAPE} rows × ${DIM}, ${START.toLocaleString()} → ${N.toLocaleString()} in steps of ${STEP}`,
  );
  await write(START);
  await vectorStore.upkeep(); // the first index, as a freshly ingested table gets it
  let stepLat = every.length;
  for (let target = START; ; target += STEP) {
    if (target > START) {
      stepLat = every.length;
      await write(target);
    }
    const during = every.slice(stepLat);
    const r = await recall();
    // The full pass the server runs once ingestion is quiet; a build it starts runs in the
    // background, with the client asking (recall pauses it, so it runs before).
    if (target > START) void vectorStore.upkeep().catch((err) => log("upkeep failed", { error: String(err) }));
    const [l1] = loadavg();
    console.log(
      `[${clock()}] ${rows.toLocaleString()} rows, index ${index}${vectorStore.indexBuilding ? " (a new one training)" : ""}: recall@10 ${r}; while writing the step ${stats(during)}; load ${l1!.toFixed(1)}`,
    );
    if (target >= N) break;
  }
  // Let the last build finish, with the client still asking; then one more pass, as the server's
  // 10 s upkeep timer makes: a table skipped while its index trained (table-upkeep.ts) has its retrain
  // check then, and upkeep() returns once a build it starts has ended.
  while (vectorStore.indexBuilding) await Bun.sleep(1000);
  await vectorStore.upkeep();
  await Bun.sleep(2000);
  console.log(`[${clock()}] final: index ${await servingIndex()}, recall@10 ${await recall()}, ${stats(lat)}`);
} finally {
  stopped = true;
  clearInterval(watcher);
  await client;
  vectorStore.close();
  conn.close();
  (await import("node:fs")).rmSync(dir, { recursive: true, force: true });
}
