/**
 * Query latency over HTTP against the compiled binary, next to raw in-process
 * LanceDB search on the same table, in the same run.
 *
 *   ./node_modules/.bin/bun bench/query-http.ts [10000|20000|100000|1000000] [topical|flat|dense] [--dir DIR]
 *
 * 1. Starts dist/ragd once to create a user, a builtin pipeline and a key over
 *    HTTP, then stops it (SIGTERM).
 * 2. Writes N chunks (10 per document) of generated text straight into the
 *    pipeline's LanceDB table with the project's VectorStore, vectors from
 *    embedBuiltin, and the matching `documents` rows (ready, chunk_count 10) into
 *    ragd.db, then runs upkeep() (full-text, document and row-id indexes, and
 *    from 10,000 rows the IVF index).
 * 3. Restarts the binary and measures, with 500 sequential vector-mode queries:
 *    HTTP latency (fetch, query text, topK 10) and ragd's own logged time, the
 *    query embedding alone, and the same search raw through
 *    VectorStore.search with the embedded vector (interleaved with the HTTP ones),
 *    recall@10 of 50 HTTP and raw answers against exact brute force (by id, and
 *    with ties counted: bench/recall.ts), and throughput
 *    with 32 concurrent clients for 10 s, and the server's resident memory (RSS,
 *    sampled every 250 ms while it answers).
 *
 * At 1,000,000 chunks step 2 takes minutes (embedding, and index upkeep training the
 * index ragd serves at that size); ingestion over HTTP would take far longer. With
 * `dense` the pipeline's model is an Ollama model, answered by the stand-in Ollama of
 * test/support with the vectors of bench/dense.ts, for chunks and queries alike.
 *
 * With `--dir DIR` the data directory is kept there and reused by the next run with
 * the same size and shape, steps 1 and 2 skipped (bench/kept-corpus.ts); the table's
 * index is first made the one ann.ts picks, its build time reported as "index rebuild".
 *
 * At 1M topical chunks (the kept table, load average 4–7) recall@10 was 0.734 (p50 57 ms,
 * 15% probed) before a built-in table's search joined the full-text index's best rows, and
 * 0.922 (p50 57 ms, 5% probed) after (docs/notes/2026-12-06-search-and-ann-indexes.md);
 * with the candidates' vectors read in their full-text search and a 30 × re-rank, 0.904 at
 * p50 24–31 ms against 44–53 ms for the old code alternately (load 7.5–12).
 *
 * The corpus, its shapes (`topical`, `flat`) and the provisioning are in
 * bench/query-corpus.ts; bench/query-concurrency.ts measures many clients.
 */
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { embedBuiltin } from "../src/embed/builtin";
import { startFakeOllama, type FakeOllama } from "../test/support/fake-ollama";
import { openLance } from "../src/vectors/connection";
import { VectorStore } from "../src/vectors/store";
import { tempDir } from "../test/support/app";
import { ensureBinary } from "../test/support/binary";
import { denseSpace } from "./dense";
import { dirArg, ensureServingIndex, exactAnswers, flatTopK, keep, restore } from "./kept-corpus";
import { DIM, N, SHAPE, TOPICS, load, provision, sentence, serve, stop, type Server } from "./query-corpus";
import { exactDistances, RecallTally, recallHits } from "./recall";
import { percentile, random } from "./support";

const QUERIES = 500;
const RECALL_QUERIES = 50;
const CLIENTS = 32;
const THROUGHPUT_MS = 10_000;
const TOP_K = 10;

const ms = (x: number) => `${x.toFixed(2)} ms`;
const DENSE_MODEL = "all-minilm";
const space = SHAPE === "dense" ? denseSpace(DIM, TOPICS.length) : null;
/** The query vector the server computes for a text. */
const embedQuery = (text: string) => (space ? space.query(text) : embedBuiltin(text));

/** Resident memory of a process in MB, sampled until stopped; returns the highest sample. */
function sampleRss(pid: number): () => number {
  let peak = 0;
  const read = () => {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    peak = Math.max(peak, Number(m?.[1] ?? 0) / 1024);
  };
  read();
  const timer = setInterval(read, 250);
  return () => {
    clearInterval(timer);
    read();
    return peak;
  };
}

async function main(): Promise<void> {
  await ensureBinary();
  const kept = dirArg();
  const dataDir = kept ?? tempDir("ragd-bench-http-");
  const all = new Float32Array(N * DIM);
  const ids: string[] = new Array(N); // row id of each vector in `all`
  let server: Server | null = null;
  let ollama: FakeOllama | null = null;
  try {
    if (space)
      ollama = await startFakeOllama({
        models: { [DENSE_MODEL]: DIM },
        vectorOf: { [DENSE_MODEL]: (text) => [...space.query(text)] },
      });
    if (kept) mkdirSync(kept, { recursive: true });
    let state = kept ? await restore(kept, all, ids) : null;
    let rebuildMs = 0;
    if (state) {
      console.error(`reusing ${kept}`);
      rebuildMs = await ensureServingIndex(dataDir, state.pipelineId, N, DIM);
    } else {
      console.error(`provisioning over HTTP in ${dataDir}`);
      server = await serve(dataDir, ollama?.url);
      const { pipelineId, key } = await provision(server, space ? DENSE_MODEL : "builtin");
      await stop(server);
      server = null;
      console.error(`writing ${N.toLocaleString()} chunks`);
      const drnd = random(3);
      const chunkVector = space ? (_: string, doc: number) => space.chunk(doc, drnd) : undefined;
      const loaded = await load(dataDir, pipelineId, all, ids, undefined, chunkVector);
      state = { pipelineId, key, ...loaded };
      if (kept) await keep(kept, state, all, ids);
    }
    const { pipelineId, key, loadMs, maintainMs } = state;

    console.error("restarting the binary");
    server = await serve(dataDir, ollama?.url);
    const s = server;
    const ask = async (query: string) => {
      const res = await fetch(`${s.url}/api/rag/query`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ query, topK: TOP_K, mode: "vector" }),
      });
      if (res.status !== 200) throw new Error(`query: ${res.status} ${await res.text()}`);
      return (await res.json()) as { results: { metadata: { sourceId: string; chunkIndex: number } }[] };
    };

    const qrnd = random(7);
    const queryText = () => sentence(qrnd, 3 + Math.floor(qrnd() * 4));
    const texts = Array.from({ length: QUERIES }, queryText);
    const embed: number[] = [];
    const vectors = texts.map((q) => {
      const t0 = performance.now();
      const v = embedQuery(q);
      embed.push(performance.now() - t0);
      return v;
    });

    const conn = await openLance(dataDir);
    const vectorStore = new VectorStore(conn);
    // Probed as the server probes the pipeline's vectors (a model's, with `dense`: ann-probes.ts).
    const vectorKind = space ? "model" : "builtin";
    // The text as well: a built-in table's search joins the full-text index's best rows (lexical-candidates.ts).
    const rawAsk = (text: string, vector: Float32Array) =>
      vectorStore.search(pipelineId, 1, { mode: "vector", text, vector, topK: TOP_K, vectorKind });
    // Warm both sides alike; the server also runs its first upkeep pass 10 s after start: let it pass.
    for (let i = 0; i < 100; i++) {
      const q = queryText();
      await ask(q);
      await rawAsk(q, embedQuery(q));
    }
    await Bun.sleep(Math.max(0, 12_000 - (performance.now() - s.startedAt)));
    const rss = sampleRss(s.proc.pid);

    // Interleaved, alternating which goes first, so drift in the machine's load hits both alike.
    const http: number[] = [];
    const raw: number[] = [];
    const logFrom = s.logs().length;
    for (let i = 0; i < QUERIES; i++) {
      const timeHttp = async () => {
        const t0 = performance.now();
        await ask(texts[i]!);
        http.push(performance.now() - t0);
      };
      const timeRaw = async () => {
        const t0 = performance.now();
        await rawAsk(texts[i]!, vectors[i]!);
        raw.push(performance.now() - t0);
      };
      if (i % 2) await timeRaw().then(timeHttp);
      else await timeHttp().then(timeRaw);
    }
    // The searcher counts the table's rows before each search (an empty index answers [] without embedding).
    const count: number[] = [];
    for (let i = 0; i < QUERIES; i++) {
      const t0 = performance.now();
      await vectorStore.countRows(pipelineId, 1);
      count.push(performance.now() - t0);
    }
    await Bun.sleep(200); // the last log lines
    // ragd's own per-request time (routing, auth, embedding, search, SQLite join, JSON), from its request log.
    const logged = s
      .logs()
      .slice(logFrom)
      .split("\n")
      .filter((l) => l.includes('"route":"/api/rag/query"'))
      .map((l) => Number(JSON.parse(l).ms));

    console.error("recall against brute force");
    const httpRecall = new RecallTally(TOP_K);
    const rawRecall = new RecallTally(TOP_K);
    const distances = exactDistances(all, ids, DIM);
    // Exact answers take seconds each at 1M rows: a kept directory keeps them too.
    const exactTable = await conn.openTable(VectorStore.tableName(pipelineId, 1));
    const truths = await exactAnswers(kept, texts.slice(0, RECALL_QUERIES), (q) =>
      flatTopK(exactTable, embedQuery(q), TOP_K),
    );
    exactTable.close();
    for (const [i, q] of texts.slice(0, RECALL_QUERIES).entries()) {
      const v = embedQuery(q);
      const truth = truths[i]!;
      const httpIds = (await ask(q)).results.map((r) => `${r.metadata.sourceId}:${r.metadata.chunkIndex}`);
      httpRecall.add(recallHits(httpIds, truth, distances(v), TOP_K));
      const rawIds = (await rawAsk(q, v)).map((h) => `${h.documentId}:${h.chunkIndex}`);
      rawRecall.add(recallHits(rawIds, truth, distances(v), TOP_K));
    }
    vectorStore.close();
    conn.close();

    console.error(`throughput: ${CLIENTS} clients for ${THROUGHPUT_MS / 1000} s`);
    let ok = 0;
    let errors = 0;
    const until = performance.now() + THROUGHPUT_MS;
    const trnd = random(99);
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < until) {
          try {
            await ask(sentence(trnd, 3 + Math.floor(trnd() * 4)));
            ok++;
          } catch {
            errors++;
          }
        }
      }),
    );
    const elapsed = (performance.now() - t0) / 1000;
    const rssPeak = rss();

    const [l1, l5, l15] = loadavg().map((x) => x.toFixed(2));
    console.log(
      `\nquery-http: ${N.toLocaleString()} ${SHAPE} chunks × ${DIM} dims, vector mode, topK ${TOP_K}, ${QUERIES} sequential queries; load average ${l1} ${l5} ${l15}`,
    );
    console.table({
      "load chunks (s)": (loadMs / 1000).toFixed(1),
      "maintain (s)": (maintainMs / 1000).toFixed(2),
      "index rebuild (s)": (rebuildMs / 1000).toFixed(1),
      "binary start-up (s)": (s.startupMs / 1000).toFixed(1),
    });
    console.table({
      "HTTP (fetch → ragd)": {
        p50: ms(percentile(http, 50)),
        p95: ms(percentile(http, 95)),
        p99: ms(percentile(http, 99)),
      },
      [`ragd's logged time (${logged.length} requests)`]: {
        p50: ms(percentile(logged, 50)),
        p95: ms(percentile(logged, 95)),
        p99: ms(percentile(logged, 99)),
      },
      "query embedding (in process)": {
        p50: ms(percentile(embed, 50)),
        p95: ms(percentile(embed, 95)),
        p99: ms(percentile(embed, 99)),
      },
      "raw VectorStore.search": {
        p50: ms(percentile(raw, 50)),
        p95: ms(percentile(raw, 95)),
        p99: ms(percentile(raw, 99)),
      },
      "raw VectorStore.countRows": {
        p50: ms(percentile(count, 50)),
        p95: ms(percentile(count, 95)),
        p99: ms(percentile(count, 99)),
      },
    });
    console.table({
      "p50 HTTP / p50 raw": `${(percentile(http, 50) / percentile(raw, 50)).toFixed(2)}×`,
      "recall@10 HTTP": httpRecall.recall.toFixed(3),
      "recall@10 raw": rawRecall.recall.toFixed(3),
      // A returned row as near as the 10th exact one (within 1e-3) counts too (bench/recall.ts).
      "recall@10 HTTP, with ties": httpRecall.recallWithTies.toFixed(3),
      "recall@10 raw, with ties": rawRecall.recallWithTies.toFixed(3),
      [`throughput, ${CLIENTS} clients (q/s)`]: (ok / elapsed).toFixed(0),
      "throughput errors": errors,
      "server RSS while answering, peak (MB)": rssPeak.toFixed(0),
    });
  } finally {
    if (server) await stop(server);
    await ollama?.stop();
    if (!kept) rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
