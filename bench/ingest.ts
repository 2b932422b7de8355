/**
 * Ingestion figures (through the compiled binary, over HTTP):
 *  1. builtin embedder on the SciFact corpus: MB/s and chunks/s end to end, next to
 *     raw LanceDB add() of the same chunks in this process (bulk, and one add per document);
 *  2. through the test Ollama server with a fixed per-call latency: embed calls per
 *     chunk, and wall time against the server's own busy time;
 *  3. builtin on ~100 MB of 1 MB sources: throughput next to raw bulk add() of the same
 *     chunks, and the server's peak RSS.
 * CPU seconds are printed beside each: on a small machine the embedder's own cost,
 * which raw add() does not pay, decides how close end to end can come to it.
 *
 *  4. (only with `--only languages`) the cost of text analysis: English text (the SciFact
 *     corpus, `--docs`) and Chinese and Japanese text (the pages of Debian's translated
 *     guides, bench/language-sets.ts, consecutive pages joined into documents of the
 *     English ones' mean length, so per-document costs weigh the same per character;
 *     `--cjk-pages`: a page a document), each through a `legacy` pipeline (as made before
 *     languages: no analysis) and an `auto` one, all on builtin, in characters per second
 *     of wall time and of the server's CPU time (steadier on a shared machine); `--runs`
 *     rounds, interleaved, and the medians. The CJK set is a sixth of the English one in
 *     characters, so the server's fixed costs (worker start, first compilations, loading
 *     the detector and the word breaker's dictionaries) weigh six times more on each of
 *     its characters: it is compared with English of its own size (the first SciFact
 *     documents up to as many characters), run the same way, and, for reference, with
 *     the whole English set; its `legacy` rows say how much of a gap is not the analysis. With `--warm N`, each
 *     server first ingests N documents of the same set into a pipeline of its own, untimed,
 *     so the timed run measures a server that is ingesting already, not one starting.
 *
 *   bun bench/ingest.ts [--only builtin|ollama|big|languages] [--docs N] [--big-mb 100] [--latency-ms 20] [--runs 3] [--warm 0] [--cjk-pages] [--datasets DIR]
 */
import * as lancedb from "@lancedb/lancedb";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startFakeOllama } from "../test/support/fake-ollama";
import { rowBatches, timedBulkAdd } from "./raw-add";
import { languageSet } from "./language-sets";
import {
  cpuByThread,
  cpuSeconds,
  DATASETS,
  loadCorpus,
  makeLegacy,
  peakRssMb,
  percentile,
  pooled,
  startRagd,
  waitIdle,
  threadCpu,
  type Doc,
} from "./support";

const { values: args } = parseArgs({
  options: {
    docs: { type: "string", default: "5183" },
    "big-mb": { type: "string", default: "100" },
    "latency-ms": { type: "string", default: "20" },
    only: { type: "string" },
    runs: { type: "string", default: "3" },
    warm: { type: "string", default: "0" },
    "cjk-pages": { type: "boolean", default: false },
    datasets: { type: "string" },
  },
});
const corpus = loadCorpus(Number(args.docs), args.datasets ?? DATASETS);
const textOf = (d: Doc) => `${d.title}\n\n${d.text}`;
const tmp = (p: string) => mkdtempSync(join(tmpdir(), p));

/**
 * Ingests docs as text sources into a new pipeline; returns wall seconds and the pipeline.
 * With `upkeep`, it also waits for the index upkeep that follows and reads the peak RSS again.
 * With `legacy`, the pipeline is one made before languages (support.ts makeLegacy).
 * With `warm` documents, they are ingested first, untimed, into a pipeline of their own.
 */
async function ingest(
  env: Record<string, string>,
  docs: string[],
  pipeline: Record<string, unknown>,
  upkeep = false,
  legacy = false,
  warm: string[] = [],
) {
  const dir = tmp("ragd-ingest-");
  const { server, jar } = await startRagd(dir, env);
  const newPipeline = async (name: string) => {
    const p = (await server.http("/api/rag/pipelines", { method: "POST", json: { name, ...pipeline }, jar })).body;
    if (legacy) makeLegacy(dir, p.id);
    return p;
  };
  const send = (id: string, list: string[]) =>
    pooled(list, 16, async (content, i) => {
      const r = await server.http(`/api/rag/pipelines/${id}/sources`, {
        method: "POST",
        json: { type: "text", name: `doc ${i}`, content },
        jar,
      });
      if (r.status !== 201) throw new Error(`create failed: ${r.status} ${JSON.stringify(r.body)}`);
    });
  if (warm.length) {
    const w = await newPipeline("warm-up");
    await send(w.id, warm);
    await waitIdle(server, jar, w.id);
  }
  const p = await newPipeline("bench");
  const cpu0 = cpuSeconds(server.proc.pid);
  const threads0 = threadCpu(server.proc.pid);
  const t0 = performance.now();
  await send(p.id, docs);
  const created = (performance.now() - t0) / 1000;
  const done = await waitIdle(server, jar, p.id);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(server.proc.pid) - cpu0;
  const byThread = cpuByThread(server.proc.pid, threads0, threadCpu(server.proc.pid), cpu);
  const rss = peakRssMb(server.proc.pid);
  // Index upkeep waits for ingestion to go quiet; give it its turn and read the peak again.
  if (upkeep) await Bun.sleep(25_000);
  const rssAfterUpkeep = peakRssMb(server.proc.pid);
  const annBuilt = server.logs().includes("vector index built");
  server.proc.kill("SIGTERM");
  await server.proc.exited;
  rmSync(dir, { recursive: true, force: true });
  return {
    seconds,
    cpu,
    byThread,
    created,
    chunks: done.chunkCount as number,
    status: done.status as string,
    rss,
    rssAfterUpkeep,
    annBuilt,
  };
}

/**
 * Raw LanceDB add() of the same chunks: every row is prepared first (chunked and embedded,
 * not timed), then added in batches of 2,048 into a new table; the faster of two runs
 * counts. Optionally also one add() per document.
 */
async function rawAdd(docs: string[], perDoc: boolean) {
  const dir = tmp("ragd-raw-");
  const db = await lancedb.connect(dir);
  const { batches, embedCpu } = rowBatches(docs, 2048);
  const rows = batches.reduce((n, b) => n + b.length, 0);
  const { bulkS, bulkCpu } = await timedBulkAdd(db, batches);
  let perDocS = NaN;
  if (perDoc) {
    const all = batches.flat();
    const table = await db.createTable("perdoc", all.slice(0, 1));
    const byDoc = Map.groupBy(all.slice(1), (r) => r.document_id as string);
    const t0 = performance.now();
    for (const group of byDoc.values()) await table.add(group);
    perDocS = (performance.now() - t0) / 1000;
  }
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return { rows, bulkS, perDocS, bulkCpu, embedCpu };
}

/** Consecutive texts joined by a blank line into documents of about `chars` characters each. */
/** The first of `docs` that hold `chars` characters together (all when they hold fewer). */
function firstChars(docs: string[], chars: number): string[] {
  let n = 0;
  const out: string[] = [];
  for (const d of docs) {
    if (n >= chars) break;
    out.push(d);
    n += d.length;
  }
  return out;
}
const SMALL_AUTO = "English, CJK's size, auto";
const SMALL_LEGACY = "English, CJK's size, legacy";

function joinedTo(texts: string[], chars: number): string[] {
  const out: string[] = [];
  let doc = "";
  for (const t of texts) {
    // The next text goes into a new document when that leaves this one nearer the length.
    if (doc && doc.length + 2 + t.length - chars > chars - doc.length) {
      out.push(doc);
      doc = "";
    }
    doc = doc ? `${doc}\n\n${t}` : t;
  }
  if (doc) out.push(doc);
  return out;
}

const mb = (docs: string[]) => docs.reduce((n, d) => n + Buffer.byteLength(d), 0) / 1024 / 1024;

if (!args.only || args.only === "builtin") {
  const docs = corpus.map(textOf);
  // builtin, as the raw add() reference embeds: the comparison is of the write path.
  const e2e = await ingest({}, docs, { embeddingModel: "builtin" });
  const raw = await rawAdd(docs, true);
  console.log(
    `\n1. builtin, ${docs.length} documents, ${mb(docs).toFixed(1)} MB, ${e2e.chunks} chunks (status ${e2e.status})`,
  );
  console.log(
    `   end to end           ${(mb(docs) / e2e.seconds).toFixed(2)} MB/s   ${(e2e.chunks / e2e.seconds).toFixed(0)} chunks/s   (${e2e.seconds.toFixed(1)} s; all sources created after ${e2e.created.toFixed(1)} s)`,
  );
  console.log(
    `   raw add(), bulk      ${(raw.rows / raw.bulkS).toFixed(0)} chunks/s   → end to end is ${((100 * e2e.chunks) / e2e.seconds / (raw.rows / raw.bulkS)).toFixed(0)} % of it (target ≥ 50 %)`,
  );
  console.log(
    `   CPU                  end to end ${e2e.cpu.toFixed(1)} s (server, all threads; the built-in embedder alone takes ${raw.embedCpu.toFixed(1)} s of it on one core); raw add() ${raw.bulkCpu.toFixed(1)} s`,
  );
  console.log(
    `   raw add() per doc    ${(raw.rows / raw.perDocS).toFixed(0)} chunks/s   → end to end is ${((100 * e2e.chunks) / e2e.seconds / (raw.rows / raw.perDocS)).toFixed(0)} % of it`,
  );
}

if (!args.only || args.only === "ollama") {
  const latency = Number(args["latency-ms"]);
  const fake = await startFakeOllama({ latencyMs: latency });
  // Sources of ten abstracts each: the server, not source creation, sets the pace.
  const docs = Array.from({ length: 100 }, (_, i) =>
    corpus
      .slice(i * 10, i * 10 + 10)
      .map(textOf)
      .join("\n\n"),
  );
  const e2e = await ingest({ RAGD_OLLAMA_URL: fake.url }, docs, { embeddingModel: "ollama/all-minilm" });
  const s = fake.stats();
  console.log(
    `\n2. Ollama (fake, ${latency} ms per call), ${docs.length} documents, ${e2e.chunks} chunks (status ${e2e.status})`,
  );
  console.log(
    `   embed calls          ${s.calls} → ${(s.calls / e2e.chunks).toFixed(4)} per chunk (target ≤ ${(1 / 32).toFixed(4)}; the fewest possible in batches of 32 is ${Math.ceil(e2e.chunks / 32)})`,
  );
  console.log(
    `   wall / server busy   ${e2e.seconds.toFixed(2)} s / ${(s.busyMs / 1000).toFixed(2)} s = ${(e2e.seconds / (s.busyMs / 1000)).toFixed(2)}× (target ≤ 1.1×; max ${s.maxConcurrent} calls at once)`,
  );
  await fake.stop();
}

if (!args.only || args.only === "big") {
  const target = Number(args["big-mb"]) * 1024 * 1024;
  const base = corpus.map(textOf);
  const docs: string[] = [];
  let size = 0;
  // ~1 MB sources built from the corpus, each one unique so no chunk repeats exactly.
  for (let k = 0; size < target; k++) {
    let s = "";
    for (let j = 0; s.length < 1024 * 1024; j++) s += `[${k}.${j}] ${base[(k * 131 + j) % base.length]}\n\n`;
    docs.push(s);
    size += s.length;
  }
  const e2e = await ingest({}, docs, { embeddingModel: "builtin" }, true);
  const raw = await rawAdd(docs, false);
  console.log(
    `\n3. builtin, ${docs.length} sources of 1 MB, ${mb(docs).toFixed(0)} MB, ${e2e.chunks} chunks (status ${e2e.status})`,
  );
  console.log(
    `   end to end           ${(mb(docs) / e2e.seconds).toFixed(2)} MB/s   ${(e2e.chunks / e2e.seconds).toFixed(0)} chunks/s   (${e2e.seconds.toFixed(1)} s)`,
  );
  console.log(
    `   raw add(), bulk      ${(raw.rows / raw.bulkS).toFixed(0)} chunks/s   → end to end is ${((100 * e2e.chunks) / e2e.seconds / (raw.rows / raw.bulkS)).toFixed(0)} % of it (target ≥ 50 %)`,
  );
  console.log(
    `   CPU                  end to end ${e2e.cpu.toFixed(1)} s (server, all threads; the built-in embedder alone takes ${raw.embedCpu.toFixed(1)} s of it on one core); raw add() ${raw.bulkCpu.toFixed(1)} s`,
  );
  console.log(
    `   peak server RSS      ${e2e.rss.toFixed(0)} MB while ingesting (target ≤ 1024 MB); ${e2e.rssAfterUpkeep.toFixed(0)} MB including the index upkeep that follows (ANN index built: ${e2e.annBuilt ? "yes" : "not yet"})`,
  );
}

if (args.only === "languages") {
  const english = corpus.map(textOf);
  const cjkSets = [
    ["gnome", "zh_CN"],
    ["gnome", "ja"],
    ["debref", "zh-cn"],
    ["debref", "ja"],
  ] as const;
  const pages = cjkSets.flatMap(([source, lang]) => {
    const set = languageSet(source, lang);
    if (typeof set === "string") throw new Error(set);
    return set.map((d) => `${d.title}\n\n${d.body}`);
  });
  // Documents of the English set's mean length: per-document costs weigh the same per character.
  const englishMean = english.reduce((n, d) => n + d.length, 0) / english.length;
  const cjk = args["cjk-pages"] ? pages : joinedTo(pages, englishMean);
  // English of the CJK set's size (its first documents): a run's fixed costs then weigh the same per character.
  const cjkChars = cjk.reduce((n, d) => n + d.length, 0);
  const englishSmall = firstChars(english, cjkChars);
  const runs: [string, string[], boolean][] = [
    ["English, legacy", english, true],
    ["English, auto", english, false],
    [SMALL_AUTO, englishSmall, false],
    ["Chinese + Japanese, auto", cjk, false],
    ["Chinese + Japanese, legacy", cjk, true],
    [SMALL_LEGACY, englishSmall, true],
  ];
  const speeds = new Map<string, number[]>(runs.map(([label]) => [label, []]));
  const cpuSpeeds = new Map<string, number[]>(runs.map(([label]) => [label, []]));
  const threads = new Map<string, Record<string, number>[]>(runs.map(([label]) => [label, []]));
  for (let round = 0; round < Number(args.runs); round++) {
    for (const [label, docs, legacy] of runs) {
      const warm = docs.slice(0, Number(args.warm)).map((d) => `${d} (warm-up)`);
      const r = await ingest({}, docs, { embeddingModel: "builtin" }, false, legacy, warm);
      if (r.status !== "ready") throw new Error(`${label}: status ${r.status}`);
      const chars = docs.reduce((n, d) => n + d.length, 0);
      speeds.get(label)!.push(chars / r.seconds);
      cpuSpeeds.get(label)!.push(chars / r.cpu);
      threads.get(label)!.push(r.byThread);
      console.error(
        `round ${round + 1} ${label}: ${(chars / r.seconds / 1000).toFixed(0)} k chars/s, ${(chars / r.cpu / 1000).toFixed(0)} k chars per CPU second, ${r.chunks} chunks`,
      );
    }
  }
  const median = (label: string) => percentile(speeds.get(label)!, 50);
  const cpuMedian = (label: string) => percentile(cpuSpeeds.get(label)!, 50);
  const warmed = Number(args.warm) ? `, after ${args.warm} documents ingested untimed` : "";
  console.log(
    `\n4. text analysis on builtin, ${args.runs} interleaved rounds (characters per second, end to end${warmed})`,
  );
  for (const [label, docs] of runs) {
    const each = speeds
      .get(label)!
      .map((x) => (x / 1000).toFixed(0))
      .join(", ");
    const chars = docs.reduce((n, d) => n + d.length, 0);
    console.log(
      `   ${label.padEnd(26)} median ${(median(label) / 1000).toFixed(0)} k/s, ${(cpuMedian(label) / 1000).toFixed(0)} k per CPU s   (${each}; ${docs.length} documents, ${chars} characters)`,
    );
  }
  console.log("   server CPU seconds by thread, medians (main, workers, jit, lance, other):");
  for (const [label] of runs) {
    const parts = ["main", "workers", "jit", "lance", "other"].map((k) =>
      percentile(
        threads.get(label)!.map((t) => t[k]!),
        50,
      ).toFixed(2),
    );
    console.log(`   ${label.padEnd(26)} ${parts.join("  ")}`);
  }
  for (const [name, of] of [
    ["wall", median],
    ["CPU", cpuMedian],
  ] as const) {
    const ratio = (a: string, b: string) => (of(a) / of(b)).toFixed(3);
    const [cjkAuto, cjkLegacy] = ["Chinese + Japanese, auto", "Chinese + Japanese, legacy"];
    console.log(`   ${name}: English auto / legacy ${ratio("English, auto", "English, legacy")} (target ≥ 0.90)`);
    console.log(
      `   ${name}: CJK / English of its size (auto) ${ratio(cjkAuto, SMALL_AUTO)} (target ≥ 0.50); (legacy) ${ratio(cjkLegacy, SMALL_LEGACY)}; CJK auto / legacy ${ratio(cjkAuto, cjkLegacy)}`,
    );
    console.log(
      `   ${name}: CJK / the whole English set (auto) ${ratio(cjkAuto, "English, auto")}; (legacy) ${ratio(cjkLegacy, "English, legacy")}`,
    );
  }
}
