/**
 * Queries under a mixed write load, through the compiled binary with the built-in
 * embedder: do queries keep their share of the server while many clients write?
 *
 *   ./node_modules/.bin/bun bench/mixed-load.ts [--clients 64] [--seconds 60] [--idle 15]
 *                                               [--docs 2000] [--batch 50] [--datasets DIR]
 *                                               [--writes mixed|new|unchanged] [--modes hybrid,vector,keyword]
 *                                               [--env NAME=value]… [--log FILE]
 *
 * 1. Starts dist/ragd on a fresh data directory (the per-key query rate lifted), creates a
 *    pipeline and a key with the query and ingest scopes, and loads `--docs` documents
 *    (SciFact abstracts when the shared datasets are there, else generated prose) through
 *    POST /api/rag/documents/batch; waits until they are ready and every index covers them.
 * 2. Idle reference: half of `--clients` ask queries back to back for `--idle` seconds, the
 *    titles of the corpus in turn, the `--modes` in turn (by default hybrid, vector and
 *    keyword), topK 10.
 * 3. Mixed load: the same query clients and as many writers, for `--seconds`. Each writer
 *    does in turn: PUT of new content (fresh() says which); two PUTs of a loaded document
 *    with its content unchanged; a batch of `--batch` items, half new content and half
 *    unchanged. A 429 or 503 with Retry-After is counted and the same request sent again
 *    once it has passed.
 *    `--writes new` or `unchanged` sends only PUTs of that kind.
 * 4. Waits for ingestion to end and counts the documents, and those ready (nothing lost).
 *
 * Prints: query p50 / p95 / p99 of both phases and their ratios; queries and writes per
 * second; the count of 5xx and of 429/503 answers for each kind; the server's CPU by
 * thread in each phase. Figures and what they showed:
 * docs/notes/2026-12-06-queries-under-writes.md.
 *
 * `--env` passes a setting to the server (repeatable), to compare configurations; `--log FILE`
 * keeps the server's log (one line per request, with its time in the server).
 * Everything is on loopback and bounded: clients stop at the deadline and the server is
 * stopped and its directory removed at the end.
 */
import { rmSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { tempDir } from "../test/support/app";
import { ensureBinary } from "../test/support/binary";
import {
  batchBodies,
  builtinPipeline,
  cpuByThread,
  cpuSeconds,
  DATASETS,
  type Doc,
  loadCorpus,
  percentile,
  sendBatches,
  startRagd,
  threadCpu,
  waitIdle,
} from "./support";

const { values: args } = parseArgs({
  options: {
    clients: { type: "string", default: "64" },
    seconds: { type: "string", default: "60" },
    idle: { type: "string", default: "15" },
    docs: { type: "string", default: "2000" },
    batch: { type: "string", default: "50" },
    writes: { type: "string", default: "mixed" },
    modes: { type: "string", default: "hybrid,vector,keyword" },
    datasets: { type: "string" },
    env: { type: "string", multiple: true, default: [] },
    log: { type: "string" },
  },
});
const CLIENTS = Number(args.clients);
const READERS = Math.max(1, Math.floor(CLIENTS / 2));
const WRITERS = Math.max(1, CLIENTS - READERS);
const BATCH = Number(args.batch);
const ENV = Object.fromEntries(args.env.map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
const MODES = args.modes.split(",");

const corpus = loadCorpus(Number(args.docs), args.datasets ?? DATASETS);
const content = (d: Doc) => `${d.title}\n\n${d.text}`;
const HALF = Math.floor(corpus.length / 2);
/**
 * New content: a document of the first half of the corpus replaced by a new revision of
 * its text, so that the table keeps its size (a growing table slows every search by
 * itself, which is not what this measures).
 */
const fresh = (n: number) => {
  const d = corpus[n % HALF]!;
  return { externalId: d.id, type: "text", content: `${content(d)}\n\nRevision ${n}.` };
};
/** Unchanged content: a document of the second half sent again as it was loaded. */
const same = (n: number) => {
  const d = corpus[HALF + (n % (corpus.length - HALF))]!;
  return { externalId: d.id, type: "text", content: content(d) };
};
/** The document `i` of the corpus as it is loaded. */
const loaded = (i: number) => ({ externalId: corpus[i]!.id, type: "text", content: content(corpus[i]!) });

interface Tally {
  ms: number[];
  ok: number;
  items: number;
  s5xx: number;
  busy: number;
  other: number;
}
const tally = (): Tally => ({ ms: [], ok: 0, items: 0, s5xx: 0, busy: 0, other: 0 });

await ensureBinary();
const dir = tempDir("ragd-mixed-load-");
const { server, jar } = await startRagd(dir, { RAGD_QUERY_RATE: "1000000", RAGD_QUERY_BURST: "1000000", ...ENV });

/** The server's CPU by kind of thread from now until the returned function is called. */
function cpuMeter() {
  const pid = server.proc.pid;
  const before = threadCpu(pid);
  const total = cpuSeconds(pid);
  return () => cpuByThread(pid, before, threadCpu(pid), cpuSeconds(pid) - total);
}

/** One request; on 429/503 with Retry-After counts it and sends again once it has passed. */
async function send(t: Tally, path: string, init: RequestInit, items: number, until: number): Promise<void> {
  for (;;) {
    const t0 = performance.now();
    const res = await fetch(server.url + path, init).catch(() => null);
    const body = res ? await res.text() : "";
    if (!res) {
      t.other++;
      return;
    }
    if (res.status >= 500 && res.status !== 503) t.s5xx++;
    if ((res.status === 429 || res.status === 503) && res.headers.has("retry-after")) {
      t.busy++;
      const wait = 1000 * Number(res.headers.get("retry-after"));
      if (performance.now() + wait > until) return;
      await Bun.sleep(wait);
      continue;
    }
    if (res.status >= 300) {
      t.other++;
      if (t.other <= 3) console.error(`${init.method} ${path}: ${res.status} ${body.slice(0, 200)}`);
      return;
    }
    t.ms.push(performance.now() - t0);
    t.ok++;
    t.items += items;
    return;
  }
}

/** Waits until every index of every table covers all its rows (/metrics); the rows left out at `ms`. */
async function waitIndexed(srv: typeof server, ms: number): Promise<number> {
  const deadline = performance.now() + ms;
  for (;;) {
    const text = String((await srv.http("/metrics", { jar })).body);
    const left = [...text.matchAll(/^ragd_lancedb_index_unindexed_rows\{[^}]*\} (\d+)$/gm)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
    if (left === 0 || performance.now() > deadline) return left;
    await Bun.sleep(1000);
  }
}

try {
  const p = await builtinPipeline(server, jar, "mixed", ["query", "ingest"]);
  const auth = { authorization: `Bearer ${p.key}`, "content-type": "application/json" };
  const t0 = performance.now();
  const loads = Array.from({ length: Math.ceil(corpus.length / 500) }, (_, i) =>
    corpus.slice(i * 500, (i + 1) * 500).map((_, j) => loaded(i * 500 + j)),
  );
  await sendBatches(server, p.key, batchBodies(loads), 2);
  await waitIdle(server, jar, p.id);
  console.error(`loaded ${corpus.length} documents in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  // The idle reference is of an indexed table: the first commit makes the table, so until
  // upkeep's first pass the whole corpus is a full-text tail every keyword search scans.
  const tail = await waitIndexed(server, 180_000);
  console.error(`indexes complete${tail > 0 ? ` but for ${tail} rows after 180 s` : ""}`);

  let asked = 0;
  /** `READERS` clients asking queries until `until`. */
  const readers = (t: Tally, until: number) =>
    Promise.all(
      Array.from({ length: READERS }, async () => {
        while (performance.now() < until) {
          const n = asked++;
          const json = { query: corpus[n % corpus.length]!.title, topK: 10, mode: MODES[n % MODES.length] };
          await send(t, "/api/rag/query", { method: "POST", headers: auth, body: JSON.stringify(json) }, 1, until);
        }
      }),
    );

  let made = 0;
  let turn = 0;
  /** `WRITERS` clients writing in turn: new PUT, two unchanged PUTs, a mixed batch. */
  const writers = (t: Tally, until: number) =>
    Promise.all(
      Array.from({ length: WRITERS }, async () => {
        while (performance.now() < until) {
          const k = args.writes === "unchanged" ? 1 : args.writes === "new" ? 0 : turn % 4;
          turn++;
          if (k === 3) {
            const docs = Array.from({ length: BATCH }, (_, i) => (i % 2 ? same(turn * BATCH + i) : fresh(made++)));
            const body = JSON.stringify({ documents: docs });
            await send(t, "/api/rag/documents/batch", { method: "POST", headers: auth, body }, BATCH, until);
            continue;
          }
          const doc = k === 0 ? fresh(made++) : same(turn);
          const { externalId, ...fields } = doc;
          const path = `/api/rag/documents/${encodeURIComponent(externalId)}`;
          await send(t, path, { method: "PUT", headers: auth, body: JSON.stringify(fields) }, 1, until);
        }
      }),
    );

  // Warm-up, then the idle reference.
  await readers(tally(), performance.now() + 3000);
  const idle = tally();
  const idleStart = performance.now();
  const idleCpu = cpuMeter();
  await readers(idle, idleStart + Number(args.idle) * 1000);
  const idleS = (performance.now() - idleStart) / 1000;
  const idleUse = idleCpu();

  console.error(`idle done; ${READERS} readers and ${WRITERS} writers for ${args.seconds} s`);
  const busyQ = tally();
  const busyW = tally();
  const busyStart = performance.now();
  const deadline = busyStart + Number(args.seconds) * 1000;
  const busyCpu = cpuMeter();
  await Promise.all([readers(busyQ, deadline), writers(busyW, deadline)]);
  const busyS = (performance.now() - busyStart) / 1000;
  const busyUse = busyCpu();

  // Nothing lost: once ingestion ends, every document is there and ready.
  const end = await waitIdle(server, jar, p.id, 10 * 60_000);
  const ready = (await server.http("/api/rag/documents?status=ready&pageSize=1", { headers: auth })).body.total;

  const show = (t: Tally) =>
    `p50 ${percentile(t.ms, 50).toFixed(1)}  p95 ${percentile(t.ms, 95).toFixed(1)}  p99 ${percentile(t.ms, 99).toFixed(1)} ms`;
  const counts = (t: Tally) => `5xx ${t.s5xx}, 429/503 ${t.busy}, other failures ${t.other}`;
  console.log(
    `\nmixed-load: ${corpus.length} documents loaded; ${READERS} query clients, ${WRITERS} writers, ${busyS.toFixed(0)} s`,
  );
  console.log(`  idle queries   ${show(idle)}  (${(idle.ok / idleS).toFixed(0)}/s; ${counts(idle)})`);
  console.log(`  mixed queries  ${show(busyQ)}  (${(busyQ.ok / busyS).toFixed(0)}/s; ${counts(busyQ)})`);
  console.log(
    `  mixed / idle   p50 ×${(percentile(busyQ.ms, 50) / percentile(idle.ms, 50)).toFixed(1)}, p99 ×${(percentile(busyQ.ms, 99) / percentile(idle.ms, 99)).toFixed(1)}`,
  );
  console.log(
    `  writes         ${show(busyW)}  (${(busyW.ok / busyS).toFixed(0)} requests/s, ${(busyW.items / busyS).toFixed(0)} documents/s; ${counts(busyW)})`,
  );
  console.log(`  at the end     ${end.sourceCount} documents, ${ready} ready (of ${corpus.length})`);
  const cores = (u: typeof idleUse, s: number) =>
    Object.entries(u)
      .filter(([k]) => k !== "mainFaults")
      .map(([k, v]) => `${k} ${(v / s).toFixed(2)}`)
      .join(", ");
  console.log(`  server cores   idle: ${cores(idleUse, idleS)}; mixed: ${cores(busyUse, busyS)}`);
} finally {
  if (args.log) writeFileSync(args.log, server.logs());
  server.proc.kill("SIGTERM");
  await server.proc.exited;
  rmSync(dir, { recursive: true, force: true });
}
