/**
 * A first sync of many small files (docs/API.md, "Folder sources") against the batch
 * documents API on the same text (issue 42's figure: the folder at ≥ 80 % of the batch's
 * throughput). The same texts (SciFact abstracts, title and text, else generated prose)
 * are written once as files of a folder under RAGD_FOLDER_ROOTS; then, on one compiled
 * binary (built-in embedder), runs alternate: the texts sent to
 * POST /api/rag/documents/batch (batches of 500, two in flight) into a new pipeline, and a
 * folder source made in another new pipeline. Each is timed from the first request until
 * every document has said source.ready (the event stream, bench/support.ts followEnds),
 * with the server's CPU time over the run. One run of each first warms the server up and
 * is not counted.
 *
 *   bun bench/connected-first-sync.ts [--docs 1000] [--runs 5] [--datasets DIR] [--only folder|batch]
 *
 * --only runs one kind alone (no ratio), for a profile of the server
 * (BENCH_SERVER_BUN_OPTIONS="--cpu-prof --cpu-prof-dir=DIR"). A folder run also says when
 * its sync itself ended (its files made, not yet indexed). The texts are read from the
 * datasets directory and written to a temporary folder, never into the checkout.
 *
 * Last measured (2 cores shared, load 8–37; docs/notes/2026-12-06-connected-first-sync.md),
 * before → after a sync's new files were written as a batch request's are: ratio, median
 * of 9 runs in each of four sets, 0.59–0.75 → 1.05–1.12 (target 0.80; 26 of 36 runs at
 * or above it); the folder's server CPU per run 1.8–2.5 → 1.3–1.8 s.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { tempDir } from "../test/support/app";
import {
  batchBodies,
  builtinPipeline,
  cpuByThread,
  cpuSeconds,
  DATASETS,
  followEnds,
  loadCorpus,
  percentile,
  sendBatches,
  startRagd,
  threadCpu,
} from "./support";

const { values: args } = parseArgs({
  options: {
    docs: { type: "string" },
    runs: { type: "string" },
    datasets: { type: "string" },
    only: { type: "string" },
  },
});
const DOCS = Number(args.docs ?? 1000);
const RUNS = Number(args.runs ?? 5);
const BATCH = 500;

const texts = loadCorpus(DOCS, args.datasets ?? DATASETS).map((d) => ({ id: d.id, text: `${d.title}\n\n${d.text}` }));
const base = tempDir("ragd-first-sync-");
const roots = join(base, "roots");
const folder = join(roots, "share");
for (let i = 0; i < texts.length; i++) {
  const dir = join(folder, `d${Math.floor(i / 250)}`);
  if (i % 250 === 0) mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${texts[i]!.id}.txt`), texts[i]!.text);
}
const bodies = batchBodies(
  Array.from({ length: Math.ceil(texts.length / BATCH) }, (_, b) =>
    texts.slice(b * BATCH, (b + 1) * BATCH).map((t) => ({ externalId: t.id, type: "text", content: t.text })),
  ),
);

const { server, jar } = await startRagd(join(base, "data"), { RAGD_FOLDER_ROOTS: roots });
const pid = server.proc.pid;

/** Stops the server (which writes its profile, if asked for one) and removes the folder and data. */
async function stop() {
  server.proc.kill();
  await server.proc.exited;
  rmSync(base, { recursive: true, force: true });
}

interface Run {
  seconds: number;
  cpu: number;
  byThread: ReturnType<typeof cpuByThread>;
}

/** Times `start` until `n` sources of the new pipeline have ended; wall and server CPU time. */
async function timed(label: string, n: number, start: (p: { id: string; key: string }) => Promise<void>) {
  const p = await builtinPipeline(server, jar, `${label}-${Date.now()}`, ["ingest", "query"]);
  const ended = (await followEnds(server, p.key, n)).ended();
  ended.catch(() => {});
  const cpu0 = cpuSeconds(pid);
  const threads0 = threadCpu(pid);
  const t0 = performance.now();
  await start(p);
  const seconds = ((await ended) - t0) / 1000;
  const cpu = cpuSeconds(pid) - cpu0;
  return { seconds, cpu, byThread: cpuByThread(pid, threads0, threadCpu(pid), cpu) };
}

const batch = () =>
  timed("batch", texts.length, async (p) => {
    const statuses = await sendBatches(server, p.key, bodies, 2);
    if ((statuses.get("queued") ?? 0) + (statuses.get("created") ?? 0) === 0)
      throw new Error(`batch: ${JSON.stringify([...statuses])}`);
  });

// The folder source says source.ready too, when its sync has created every file's document.
const synced = () =>
  timed("folder", texts.length + 1, async (p) => {
    const r = await server.http(`/api/rag/pipelines/${p.id}/sources`, {
      method: "POST",
      json: { type: "folder", path: folder },
      jar,
    });
    if (r.status !== 201) throw new Error(`folder source: ${r.status} ${JSON.stringify(r.body)}`);
    void syncEnd(p.id, r.body.id as string, performance.now());
  });

/** When the folder's sync itself ended (its files made, not yet indexed), seconds after `t0`; printed with the run. */
let syncSeconds = Number.NaN;
async function syncEnd(pipelineId: string, sourceId: string, t0: number) {
  syncSeconds = Number.NaN;
  for (let i = 0; i < 1200; i++) {
    const s = (await server.http(`/api/rag/pipelines/${pipelineId}/sources/${sourceId}`, { jar })).body;
    if (s?.syncReport) return void (syncSeconds = (performance.now() - t0) / 1000);
    await Bun.sleep(25);
  }
}

const show = (label: string, r: Run) => {
  const t = r.byThread;
  console.log(
    `${label}: ${r.seconds.toFixed(2)} s${label.endsWith("folder") ? ` (sync ended at ${syncSeconds.toFixed(2)} s)` : ""}, ${(texts.length / r.seconds).toFixed(0)} docs/s, server CPU ${r.cpu.toFixed(1)} s ` +
      `(main ${t.main.toFixed(1)}, workers ${t.workers.toFixed(1)}, JIT ${t.jit.toFixed(1)}, LanceDB ${t.lance.toFixed(1)}, other ${t.other.toFixed(1)})`,
  );
};

if (args.only) {
  const run = args.only === "batch" ? batch : synced;
  for (let i = 0; i <= RUNS; i++) show(`${i === 0 ? "warm-up" : `run ${i}`} ${args.only}`, await run());
  await stop();
  process.exit(0);
}

console.log(`${texts.length} texts, ${RUNS} runs of each after a warm-up, alternating`);
show("warm-up batch", await batch());
show("warm-up folder", await synced());
const batches: Run[] = [];
const folders: Run[] = [];
for (let i = 0; i < RUNS; i++) {
  // Alternate which goes first, so neither always follows the other.
  const order = i % 2 === 0 ? ([batch, synced] as const) : ([synced, batch] as const);
  for (const run of order) {
    const r = await run();
    (run === batch ? batches : folders).push(r);
    show(`run ${i + 1} ${run === batch ? "batch" : "folder"}`, r);
  }
}
const median = (xs: number[]) => percentile(xs, 50);
const ratios = batches.map((b, i) => b.seconds / folders[i]!.seconds);
const mb = median(batches.map((r) => r.seconds));
const mf = median(folders.map((r) => r.seconds));
console.log(
  `median: batch ${(texts.length / mb).toFixed(0)} docs/s, folder ${(texts.length / mf).toFixed(0)} docs/s; ` +
    `folder/batch throughput ${(mb / mf).toFixed(2)} (runs ${ratios.map((x) => x.toFixed(2)).join(", ")}; target ≥ 0.80)`,
);
console.log(
  `server CPU per run, median: batch ${median(batches.map((r) => r.cpu)).toFixed(1)} s, ` +
    `folder ${median(folders.map((r) => r.cpu)).toFixed(1)} s`,
);

await stop();
