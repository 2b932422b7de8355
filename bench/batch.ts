/**
 * Many small documents through the documents API: the SciFact abstracts sent to
 * POST /api/rag/documents/batch in batches of 500 (built-in embedder, compiled binary,
 * over HTTP), until every one is indexed; chunks/s end to end as a share of a raw
 * LanceDB bulk add() of the same chunks in this run (rows prepared beforehand, as in
 * bench/ingest.ts). Then the same batches again: every item should answer unchanged,
 * with nothing embedded.
 *
 *   bun bench/batch.ts [--docs N] [--batch 500] [--in-flight 2] [--datasets DIR] [--later N]
 *
 * Two figures from one server, each timed the same way and set against the same raw
 * add(): cold, the documents into a first pipeline of a fresh process (which is then
 * deleted), and warm, the same documents into a second pipeline. The target (≥ 50 %) is
 * checked on the warm one: the raw add() gets a warm-up add() and the best of three
 * runs, so the symmetric comparison is a server that has ingested before, as a running
 * server has; the cold figure says what a fresh process pays on top (mostly the JIT
 * compilers' work). --warm N of earlier versions sent N documents to a throwaway
 * pipeline first; the cold run is that throwaway pipeline now, with all the documents.
 *
 * --datasets names the directory holding scifact/corpus.jsonl when it is not beside the
 * checkout; the corpus is read from there, never copied.
 *
 * --later N sends the documents into N more pipelines after the warm one, each timed as
 * it is ("warm +1", …). The target stays the warm figure; these show what is left once
 * the JIT compilers are done: in the warm run they still compile the hot functions into
 * their top tier (most of them for the first time: the cold run did not run them enough),
 * and only a later run is free of that. JavaScriptCore also drops top-tier code about a
 * minute after compiling it, at a collection that finds it not running, so a server that
 * ingests a burst every few minutes pays some of that again each time.
 *
 * Last measured (2 cores shared with other work, load average 8–15, so each run's ratio
 * is to the raw add() of that run), seven runs each, alternating, before → after the batch
 * path went to statements over many rows and gathered LanceDB commits (median, range):
 *   bun bench/batch.ts --docs 2000   12 % (8–21 %), 708 chunks/s (460–1,428), server CPU 3.7 s (3.3–4.1)
 *                                  → 19 % (8–23 %), 1,107 chunks/s (898–1,510), server CPU 2.4 s (2.3–2.6)
 *   bun bench/batch.ts (5,183), two runs each: 7 and 11 % (CPU 10.1, 8.2 s) → 16 and 20 % (CPU 4.8, 6.6 s)
 * Then, after the main thread's share went down (the depth check, hashes, events without
 * RETURNING, one-pass pipeline figures; docs/notes/2026-12-06-ingestion-time.md), eleven runs each, old and
 * new binaries alternating, load average 12–25 from other work (median, range):
 *   bun bench/batch.ts --docs 5000   13 % (5–27 %), 917 chunks/s (286–2,412), server 0.333 ms/chunk (0.238–0.692)
 *                                  → 12 % (9–32 %), 992 chunks/s (271–1,245), server 0.407 ms/chunk (0.238–0.741)
 * The main thread went from 0.123 to 0.118 ms per chunk (0.108 → 0.097 in the runs without
 * index upkeep); the spread is the load's, and index upkeep's: 8 of the 11 new runs and 5 of
 * the old ones lasted past an upkeep wake-up that refreshed the full-text index, whose
 * LanceDB threads then took 0.07–0.25 ms per chunk instead of 0.02.
 * Then, after claims sized to the pool's room, answers without fetch-state reads for text
 * sources, savepoints of kept statements, one stderr write per turn, and no full-text tail
 * refresh in a burst that one upkeep tick sees alone, seven runs each, alternating, load
 * average 6.6–15 from other work (median, range):
 *   bun bench/batch.ts --docs 5000   12 % (5–22 %), 1,123 chunks/s (500–2,112), server 0.433 ms/chunk (0.308–0.604)
 *                                  → 16 % (12–26 %), 1,649 chunks/s (822–2,193), server 0.338 ms/chunk (0.239–0.362)
 * By thread (medians): main 0.152 → 0.120, workers 0.089 → 0.093, JIT 0.093 → 0.076,
 * LanceDB 0.091 → 0.025 (four of the seven old runs met a tail refresh), other 0.028 → 0.020.
 * After a tick within 3 s of a chunk write also counted as ingestion (a full pass had met
 * runs whose queue was empty between two requests), three more runs each, load 10.5–12.4:
 *   13 % (7–15 %), 947 chunks/s (555–1,029), 0.480 ms/chunk → 29 % (15–29 %), 1,116 chunks/s
 *   (1,102–1,734), 0.362 ms/chunk (0.327–0.367); raw add() 3,806–8,219 rows/s in those runs.
 * On a quiet machine (load 0.3) the old binary made 21 %, 4,067 chunks/s, 0.409 ms/chunk;
 * the new one, three runs at load 0.2–0.9: 30, 31 and 31 %, 6,381, 5,888 and 5,542
 * chunks/s, 0.261, 0.297 and 0.306 ms/chunk (main 0.095–0.111, workers 0.074–0.090,
 * JIT 0.057–0.068, LanceDB 0.019–0.024, other 0.015–0.016).
 * The target is not reached on this machine: the built-in embedding alone costs more CPU
 * than the raw add() it is compared with (which embeds beforehand), and 50 % needs about
 * 0.24 ms of server CPU per chunk with both cores busy throughout (docs/notes/
 * 2026-12-06-ingestion-time.md says what remains by thread).
 * Cold and warm, on a quiet machine (load below 1), before the cold run joined the bench:
 * a fresh server 28 % (4,205 against 15,235 chunks/s; server 0.358 ms per chunk: main
 * 0.130, workers 0.102, JIT 0.078, LanceDB 0.028, other 0.020); after 5,000 documents
 * (--warm 5000), two runs, 53 % and 46 % (6,399 and 6,386 against 12,169 and 13,801;
 * 0.25 ms: main 0.100, workers 0.075, JIT 0.036, LanceDB 0.024, other 0.016). The warm
 * server did the same both times; the raw add() moved.
 * With both figures in one run, five runs of each binary alternating, before → after the
 * ready documents' update went positional (load average 2.7–10 from other work; median,
 * range):
 *   cold   22 % (11–38 %), 3,224 chunks/s (1,192–4,501), 0.370 ms/chunk (0.354–0.383)
 *        → 23 % (19–26 %), 2,778 chunks/s (2,264–2,914), 0.350 ms/chunk (0.331–0.372)
 *   warm   28 % (19–38 %), 3,184 chunks/s (2,059–5,498), 0.293 ms/chunk (0.277–0.324)
 *        → 21 % (13–29 %), 2,723 chunks/s (1,501–3,280), 0.306 ms/chunk (0.287–0.332)
 * warm by thread: main 0.119 → 0.123, workers 0.087 → 0.092, JIT 0.045 → 0.045, LanceDB
 * 0.027 → 0.030, other 0.017 → 0.016; raw add() 10,476–18,859 chunks/s in those runs.
 * No difference shows through the load: the change saves about 2 µs per chunk of the main
 * thread (its statements alone: 23 → 16.5 µs per document), 1–2 % of it.
 * Then, on a quiet machine (load 0.9–1.7, the bench's own), five runs of main alternating
 * with a build that stored each batch a hundred items at a time (so the workers start on
 * the first hundred; not kept), median (range):
 *   main     cold 33 % (30–51 %)   warm 38 % (36–45 %)   raw add() 12,009–14,766 chunks/s
 *   slices   cold 33 % (27–42 %)   warm 36 % (27–47 %)
 * The quiet machine's spread is as wide as the loaded one's: 50 % is met in single runs
 * (cold 51 %), not as a median.
 * Then a timeline of warm runs (each server thread's run and run-queue time every 5 ms,
 * beside the requests, claims, group commits and LanceDB commits; docs/notes/
 * 2026-12-06-ingestion-time.md) showed the LanceDB writer busy 89–94 % of the run from its
 * first commit, and this bench seeing the end 24–136 ms late (median about 100 ms): it
 * polled the pipeline list every 100 ms. It now follows the pipeline's event stream and
 * stops the clock on the last source.ready. Five runs of each binary alternating, both
 * with that clock, before → after the workers went below the main thread's priority and
 * the last commit stopped waiting for rows that could not come (load average 1.3–6.7
 * from other work, the bench's session given a larger share of the cores; median, range):
 *   warm   32 % (29–33 %), 4,975 chunks/s (4,406–6,617), 3.0 s, all accepted after 1.9 s
 *        → 38 % (26–43 %), 6,007 chunks/s (5,221–6,981), 2.5 s, all accepted after 1.4 s
 *   cold   26 % (23–31 %) → 28 % (17–31 %)
 * raw add() 16,224 (13,206–20,731) and 16,544 (13,767–20,295) chunks/s; warm server CPU
 * 0.316 → 0.297 ms per chunk (main 0.134 → 0.128, workers 0.085 → 0.078).
 * Then two plain appends of new rows in flight per table instead of one (not kept),
 * ten runs of each binary alternating, load average 3.5–9.1 from other work (median, range):
 *   warm   23.5 % (9–49 %) → 20.5 % (15–46 %); last accepted to last ready 1.25 s both
 *   (0.5–2.7 → 0.6–2.5 s); raw add() 12,201–34,576 chunks/s in those runs.
 * Then, after an untouched text in a batch was answered from the rows the batch reads,
 * the WAL checkpointed at 4,096 pages, the strict LRU replaced and Arrow's strings written
 * in place, seven runs of each binary alternating on a quiet machine (median, range):
 *   warm   35 % (32–43 %), 11,899 chunks/s (11,446–12,539), 0.143 ms CPU per chunk
 *        → 33 % (31–44 %), 10,923 chunks/s (9,604–12,473), 0.155 ms CPU per chunk
 *   sent again (5,000 unchanged)  0.40–0.44 s → 0.14–0.16 s
 * The warm figure did not move beyond the spread: the new binary's median is lower, and
 * in the same runs its workers, which no change touched, spent 0.037 ms per chunk against
 * 0.034. In a fourth pipeline of one process (--later 2) the JIT compilers are done
 * (0.005 ms per chunk against 0.02 in the warm run): 14,148 chunks/s, 42 % of that run's
 * raw add(), the best seen.
 * Then, on a slower machine (raw add() 17,000–22,000 chunks/s), after chunk appends skipped
 * LanceDB's two copies of the rows into fresh memory (vectors/ipc-add.ts), seven runs of
 * each binary alternating, --later 1, quiet machine (median, range):
 *   warm   27 % (22–37 %), 5,917 chunks/s (4,968–6,861), main 0.119 ms per chunk
 *        → 34 % (24–40 %), 6,946 chunks/s (6,246–7,839), main 0.091 ms per chunk
 * and the main thread's page faults over the run 165,000–170,000 → 124,000–136,000.
 * Then WAL checkpoints on a thread of their own, and (since taken back) the server keeping
 * freed memory for a second (MIMALLOC_PURGE_DELAY=1000): seven rounds of each binary
 * alternating, quiet machine, raw add() 17,000–27,000 chunks/s (median, range):
 *   warm   33 % (27–37 %), 7,102 chunks/s (5,732–8,324) → 33 % (26–45 %), 7,101 (6,589–8,762)
 * main thread 0.087 → 0.091 ms per warm chunk, its faults 122,000–135,000 → 105,000–116,000.
 * With the allocator never giving memory back (BENCH_SERVER_MIMALLOC_PURGE_DELAY=-1, one
 * run): warm 51 %, warm +1 60 %, main thread 0.049 ms per chunk, at a cost of 280 MB at
 * rest (docs/notes/2026-12-06-ingestion-time.md).
 * That gain was not the delay's: Bun's mimalloc sweeps a waiting thread's heap every 100 ms
 * and gives back the free blocks inside pages still in use, whatever the delay; -1 stops
 * that sweeper. The server now starts with the hole sweep off (MIMALLOC_PURGE_HOLES=0,
 * src/tools/allocator.ts). Seven rounds of each binary alternating, quiet machine, raw
 * add() 18,000–27,000 chunks/s (median, range):
 *   warm   35 % (32–41 %), 7,961 chunks/s (7,333–8,346), 0.205 ms CPU per chunk
 *        → 46 % (40–59 %), 9,907 chunks/s (8,204–10,303), 0.159 ms CPU per chunk
 * Then the bench serialised its batch bodies before the clock (its JSON.stringify had
 * taken 125 ms of the warm run on the server's two cores) and printed its own CPU; and
 * the server read JSON bodies as one-byte strings, sent a pipeline's settings to a
 * worker once per message, made new databases with 16 KiB pages and took new texts
 * from memory at their claim. Seven rounds of each binary alternating, both with the
 * new bench, quiet machine (median, range):
 *   warm   54 % (38–66 %), 8,489 chunks/s (7,576–10,551), 0.193 ms CPU per chunk
 *        → 57 % (50–76 %), 9,326 chunks/s (8,855–10,582), 0.171 ms CPU per chunk
 * main thread 0.080 → 0.069 ms per chunk, its faults 24,700 → 21,700; raw add() 12,200–21,200
 * rows/s. Seven runs more of the new binary alone: 53 % (43–64 %), 0.151 ms per chunk; over
 * its fourteen runs 54.5 % (43–76 %), 12 of 14 at 50 % or more.
 */
import { rmSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { tempDir } from "../test/support/app";
import { ensureBinary } from "../test/support/binary";
import { QUIET_AFTER_WRITE_MS } from "../src/vectors/upkeep-clock";
import { rawBulkAdd } from "./raw-add";
import {
  batchBodies,
  builtinPipeline,
  cpuByThread,
  cpuSeconds,
  DATASETS,
  followEnds,
  loadCorpus,
  sendBatches,
  startRagd,
  threadCpu,
  waitIdle,
  type Doc,
} from "./support";

const { values: args } = parseArgs({
  options: {
    docs: { type: "string", default: "5183" },
    batch: { type: "string", default: "500" },
    "in-flight": { type: "string", default: "2" },
    datasets: { type: "string" },
    later: { type: "string", default: "0" },
  },
});
const BATCH = Number(args.batch);
const corpus = loadCorpus(Number(args.docs), args.datasets ?? DATASETS);
const textOf = (d: Doc) => `${d.title}\n\n${d.text}`;
const batches = Array.from({ length: Math.ceil(corpus.length / BATCH) }, (_, i) =>
  corpus.slice(i * BATCH, (i + 1) * BATCH).map((d) => ({ externalId: d.id, type: "text", content: textOf(d) })),
);
const bodies = batchBodies(batches);

await ensureBinary();
const dir = tempDir("ragd-batch-");
const { server, jar } = await startRagd(dir);

const newPipeline = (name: string) => builtinPipeline(server, jar, name);
/** Sends every batch, `in-flight` at a time; returns the statuses the items got. */
const sendAll = (key: string) => sendBatches(server, key, bodies, Number(args["in-flight"]));

/** Every batch into a new pipeline until all is indexed: time, CPU by thread, the items' statuses. */
async function timedRun(name: string) {
  const pipeline = await newPipeline(name);
  const load = loadavg()[0]!;
  // The stream is open before the first batch goes, so no source's end is missed.
  const ends = await followEnds(server, pipeline.key, corpus.length);
  const ended = ends.ended();
  // Awaited after the sending; should it fail meanwhile, that is not an unhandled rejection.
  ended.catch(() => {});
  const cpu0 = cpuSeconds(server.proc.pid);
  const threads0 = threadCpu(server.proc.pid);
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  const statuses = await sendAll(pipeline.key);
  const accepted = (performance.now() - t0) / 1000;
  const seconds = ((await ended) - t0) / 1000;
  const cpu = cpuSeconds(server.proc.pid) - cpu0;
  const used = process.cpuUsage(client0);
  const clientCpu = (used.user + used.system) / 1e6;
  const byThread = cpuByThread(server.proc.pid, threads0, threadCpu(server.proc.pid), cpu);
  // Every source has ended; the list confirms it, with the chunks.
  const done = await waitIdle(server, jar, pipeline.id);
  return {
    pipeline,
    load,
    statuses,
    accepted,
    seconds,
    cpu,
    clientCpu,
    byThread,
    chunks: done.chunkCount as number,
    done,
  };
}

// Cold: a fresh process, whose JIT compilers meet every code path during the run. Its
// pipeline is then deleted, so none of its upkeep falls in the warm run, and the bench
// waits until an upkeep tick has seen ingestion quiet (3 s after the last write, ticks
// every 10 s): a tick that still counted the cold run's burst would make the warm run
// look like a long one and refresh its full-text tail inside it.
const cold = await timedRun("cold");
await server.http(`/api/rag/pipelines/${cold.pipeline.id}`, { method: "DELETE", jar });
await Bun.sleep(QUIET_AFTER_WRITE_MS + 10_000 + 500);
// Warm: the same documents into a second pipeline of the same server (the target's figure).
const warm = await timedRun("batch");

const t1 = performance.now();
const second = await sendAll(warm.pipeline.key);
const resendSeconds = (performance.now() - t1) / 1000;
const after = (await server.http(`/api/rag/pipelines/${warm.pipeline.id}`, { jar })).body;

// Later: the same documents into further pipelines, each after the one before is deleted
// and upkeep has seen ingestion quiet, as before the warm run. Not the target's figure:
// they say how much of the warm run's cost is the JIT compilers still tiering up.
const later: Awaited<ReturnType<typeof timedRun>>[] = [];
for (let previous = warm.pipeline.id; later.length < Number(args.later); ) {
  await server.http(`/api/rag/pipelines/${previous}`, { method: "DELETE", jar });
  await Bun.sleep(QUIET_AFTER_WRITE_MS + 10_000 + 500);
  later.push(await timedRun(`later-${later.length + 1}`));
  previous = later.at(-1)!.pipeline.id;
}

server.proc.kill("SIGTERM");
await server.proc.exited;
rmSync(dir, { recursive: true, force: true });

const raw = await rawBulkAdd(corpus.map(textOf));
const rawRate = raw.rows / raw.bulkS;
const show = (m: Map<string, number>) => [...m].map(([k, v]) => `${v} ${k}`).join(", ");
console.log(
  `\nbatch upserts, builtin, ${corpus.length} documents in ${batches.length} batches of ≤ ${BATCH} (${args["in-flight"]} in flight), ${warm.chunks} chunks (status ${warm.done.status})`,
);
console.log(
  `   raw add(), bulk      ${rawRate.toFixed(0)} chunks/s; runs ${raw.runsS.map((s) => (raw.rows / s).toFixed(0)).join(", ")} (after a warm-up add; the best counts); ${((1000 * raw.bulkCpu) / raw.rows).toFixed(3)} ms CPU + built-in embedding ${((1000 * raw.embedCpu) / raw.rows).toFixed(3)} ms per chunk (done before timing)`,
);
for (const [label, run] of [
  ["cold", cold],
  ["warm", warm],
  ...later.map((r, i) => [`warm +${i + 1}`, r] as const),
] as const) {
  const rate = run.chunks / run.seconds;
  const per = (s: number) => ((1000 * s) / run.chunks).toFixed(3);
  const t = run.byThread;
  const goal = label === "warm" ? " (target ≥ 50 %)" : "";
  console.log(
    `   ${`${label} server`.padEnd(20)} ${rate.toFixed(0)} chunks/s, ${((100 * rate) / rawRate).toFixed(0)} % of raw add()${goal}; ${run.seconds.toFixed(1)} s, all accepted after ${run.accepted.toFixed(1)} s; items ${show(run.statuses)}; load ${run.load.toFixed(1)}`,
  );
  console.log(
    `                        server ${per(run.cpu)} ms CPU per chunk: main ${per(t.main)}, workers ${per(t.workers)}, JIT ${per(t.jit)}, LanceDB ${per(t.lance)}, other ${per(t.other)}; main thread ${t.mainFaults} page faults; this bench ${run.clientCpu.toFixed(2)} CPU s`,
  );
}
console.log(
  `   machine              load average ${loadavg()[0]!.toFixed(1)} at the end, on ${availableParallelism()} cores`,
);
console.log(
  `   sent again (warm)    ${show(second)} in ${resendSeconds.toFixed(2)} s, ${(corpus.length / resendSeconds).toFixed(0)} items/s; chunks still ${after.chunkCount ?? "?"}`,
);
