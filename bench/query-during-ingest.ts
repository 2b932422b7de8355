/**
 * Query latency while the server ingests: one client asks a pipeline of SciFact abstracts
 * questions back to back (vector, topK 10, over HTTP with a query key), first on an idle
 * server, then while the rest of the corpus goes into a second pipeline through
 * POST /api/rag/documents/batch (500 per request, 2 in flight), as a sync job's burst
 * would. Reported: p50 / p95 / p99 / max of each phase, and the ratio of the busy p50 and
 * p99 to the idle ones.
 *
 *   bun bench/query-during-ingest.ts [--docs 5000] [--queried 1000] [--rounds 3] [--datasets DIR]
 *
 * The queries are the corpus's own titles, in turn. The server's main thread answers the
 * queries and runs ingestion's bookkeeping (docs/notes/2026-12-06-ingestion-time.md
 * and 2026-12-06-queries-under-writes.md): a query that arrives during one of its long stretches waits for it to end.
 *
 * Measured (quiet 2-core machine, three bursts of 4,183 abstracts, 1.0–1.1 s each):
 * idle p50 7.0, p95 9.7, p99 11.9 ms (689 queries); during the bursts p50 50.1, p95
 * 178.2, max 247.1 ms (46 queries): p50 ×7.2. Each batch stored a hundred items at a
 * time, a turn apart (not kept), made it worse: two single bursts each way, p50 31.9 and
 * 31.5 ms as is against 62.8 and 66.8 sliced. A query takes several turns of the main
 * thread (the request, its key, the embedding, the search's answer, the sources), and
 * each waits behind whatever ingestion has queued; shorter stretches only made more of
 * them.
 */
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { tempDir } from "../test/support/app";
import { ensureBinary } from "../test/support/binary";
import {
  builtinPipeline,
  DATASETS,
  followEnds,
  loadCorpus,
  percentile,
  batchBodies,
  sendBatches,
  startRagd,
  waitIdle,
  type Doc,
} from "./support";

const { values: args } = parseArgs({
  options: {
    docs: { type: "string", default: "5000" },
    queried: { type: "string", default: "1000" },
    datasets: { type: "string" },
    rounds: { type: "string", default: "3" },
  },
});
const corpus = loadCorpus(Number(args.docs) + Number(args.queried), args.datasets ?? DATASETS);
const queried = corpus.slice(0, Number(args.queried));
const burst = corpus.slice(Number(args.queried));
const asItem = (d: Doc) => ({ externalId: d.id, type: "text", content: `${d.title}\n\n${d.text}` });

await ensureBinary();
const dir = tempDir("ragd-query-ingest-");
// One client back to back asks more than a key's default 50 queries a second.
const { server, jar } = await startRagd(dir, { RAGD_QUERY_RATE: "100000", RAGD_QUERY_BURST: "100000" });

const pipeline = (name: string, scopes: string[]) => builtinPipeline(server, jar, name, scopes);
/** The documents as batches of 500 items, 2 in flight. */
const send = (key: string, docs: Doc[]) =>
  sendBatches(
    server,
    key,
    batchBodies(
      Array.from({ length: Math.ceil(docs.length / 500) }, (_, i) => docs.slice(i * 500, (i + 1) * 500).map(asItem)),
    ),
    2,
  );

const target = await pipeline("queried", ["query", "ingest"]);
await send(target.key, queried);
await waitIdle(server, jar, target.id);

let next = 0;
/** Asks questions back to back until `until()` says stop; the latency of each, in ms. */
async function ask(until: () => boolean): Promise<number[]> {
  const ms: number[] = [];
  while (!until()) {
    const q = queried[next++ % queried.length]!.title;
    const t0 = performance.now();
    const r = await server.http("/api/rag/query", {
      method: "POST",
      json: { query: q, topK: 10, mode: "vector" },
      headers: { authorization: `Bearer ${target.key}` },
    });
    if (r.status !== 200) throw new Error(`query failed: ${r.status}`);
    ms.push(performance.now() - t0);
  }
  return ms;
}

// Idle: as many seconds as the burst is likely to take, after a warm-up.
await ask(
  (
    (t) => () =>
      performance.now() - t > 2000
  )(performance.now()),
);
const idle = await ask(
  (
    (t) => () =>
      performance.now() - t > 5000
  )(performance.now()),
);

// Busy: the burst `rounds` times, each into a new pipeline (the one before deleted), with
// the queries of every round pooled: one burst of SciFact lasts about a second.
const busy: number[] = [];
const seconds: number[] = [];
for (let round = 0; round < Number(args.rounds); round++) {
  const other = await pipeline(`burst-${round}`, ["ingest"]);
  const ends = await followEnds(server, other.key, burst.length);
  let done = false;
  const ended = ends.ended().then((t) => {
    done = true;
    return t;
  });
  const t0 = performance.now();
  const [ms] = await Promise.all([ask(() => done), send(other.key, burst)]);
  busy.push(...ms);
  seconds.push(((await ended) - t0) / 1000);
  await server.http(`/api/rag/pipelines/${other.id}`, { method: "DELETE", jar });
  await ask(
    (
      (t) => () =>
        performance.now() - t > 3000
    )(performance.now()),
  );
}

server.proc.kill("SIGTERM");
await server.proc.exited;
rmSync(dir, { recursive: true, force: true });

const show = (xs: number[]) =>
  `p50 ${percentile(xs, 50).toFixed(1)}  p95 ${percentile(xs, 95).toFixed(1)}  p99 ${percentile(xs, 99).toFixed(1)}  max ${Math.max(...xs).toFixed(1)} ms (${xs.length} queries)`;
console.log(
  `\nqueries on ${queried.length} abstracts; ${seconds.length} bursts of ${burst.length} into another pipeline took ${seconds.map((x) => x.toFixed(1)).join(", ")} s`,
);
console.log(`   idle          ${show(idle)}`);
console.log(`   during burst  ${show(busy)}`);
console.log(
  `   busy / idle   p50 ×${(percentile(busy, 50) / percentile(idle, 50)).toFixed(1)}, p99 ×${(percentile(busy, 99) / percentile(idle, 99)).toFixed(1)}`,
);
