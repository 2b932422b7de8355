/**
 * Query latency over HTTP against the compiled binary, next to raw in-process
 * LanceDB search on the same table, in the same run.
 *
 *   ./node_modules/.bin/bun bench/query-http.ts [10000|100000|1000000] [topical|flat]
 *
 * 1. Starts dist/ragd once to create a user, a builtin pipeline and a key over
 *    HTTP, then stops it (SIGTERM).
 * 2. Writes N chunks (10 per document) of generated text straight into the
 *    pipeline's LanceDB table with the project's VectorStore, vectors from
 *    embedBuiltin, and the matching `documents` rows (ready, chunk_count 10) into
 *    ragd.db, then runs maintain() (full-text, document and, from 100,000 rows,
 *    the IVF index).
 * 3. Restarts the binary and measures, with 500 sequential vector-mode queries:
 *    HTTP latency (fetch, query text, topK 10) and ragd's own logged time, the
 *    builtin query embedding alone, and the same search raw through
 *    VectorStore.search with the embedded vector (interleaved with the HTTP ones),
 *    recall@10 of 50 HTTP and raw answers against exact brute force, and throughput
 *    with 32 concurrent clients for 10 s.
 *
 * Texts are 20 words of a made-up 20,000-word language. `topical` (the default)
 * gives each document one of N/1000 topics of 40 words, from which 60% of its words
 * come, and queries are 3–6 words of one topic: related chunks share words, as real
 * text does. `flat` draws every word from one skewed distribution, so chunks share
 * only common words and the nearest neighbours of a query are near-ties: the hard
 * case for an ANN index.
 */
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { embedBuiltin } from "../src/embed/builtin";
import { openLance } from "../src/vectors/connection";
import { VectorStore, type ChunkRow } from "../src/vectors/store";
import { tempDir } from "../test/support/app";
import { ensureBinary, startBinary, type RunningBinary } from "../test/support/binary";
import { percentile, random } from "./support";

const N = Number(process.argv[2] ?? 10_000);
const SHAPE = process.argv[3] === "flat" ? "flat" : "topical";
const DIM = 384;
const CHUNKS_PER_DOC = 10;
const WORDS_PER_CHUNK = 20;
const BATCH_DOCS = 2_000;
const QUERIES = 500;
const RECALL_QUERIES = 50;
const CLIENTS = 32;
const THROUGHPUT_MS = 10_000;
const TOP_K = 10;

if (![10_000, 100_000, 1_000_000].includes(N)) throw new Error("usage: bun bench/query-http.ts 10000|100000|1000000");

// A made-up language: 20,000 words, drawn with a skew so that some are common and most are rare.
const SYLLABLES = "ka ro mi tan vel sor qu ix len dra po ne ul ga thi ber zo fen mar lit".split(" ");
const VOCAB = ((rnd) =>
  Array.from({ length: 20_000 }, (_, i) => {
    const w = Array.from({ length: 2 + (i % 3) }, () => SYLLABLES[Math.floor(rnd() * SYLLABLES.length)]).join("");
    return i % 11 === 0 ? `${w}-${i}` : `${w}${i % 97}`;
  }))(random(42));
const word = (rnd: () => number) => VOCAB[Math.floor(VOCAB.length * rnd() ** 2)]!;
const TOPICS = ((rnd) =>
  Array.from({ length: Math.max(10, Math.round(N / 1000)) }, () =>
    Array.from({ length: 40 }, () => VOCAB[Math.floor(rnd() * VOCAB.length)]!),
  ))(random(5));
/** `n` words; in the topical shape 60% of them from `topic`. */
const sentence = (rnd: () => number, n: number, topic = TOPICS[Math.floor(rnd() * TOPICS.length)]!) =>
  Array.from({ length: n }, () =>
    SHAPE === "topical" && rnd() < 0.6 ? topic[Math.floor(rnd() * topic.length)]! : word(rnd),
  ).join(" ");

interface Server extends RunningBinary {
  startupMs: number;
  startedAt: number;
}

/** Starts `ragd serve` on a free port; waits (up to 10 min: reconciliation reads every row) for "listening". */
async function serve(dataDir: string): Promise<Server> {
  const startedAt = performance.now();
  const server = await startBinary(
    dataDir,
    { RAGD_QUERY_RATE: "1000000", RAGD_QUERY_BURST: "1000000" },
    undefined,
    600_000,
  );
  return Object.assign(server, { startupMs: performance.now() - startedAt, startedAt });
}

async function stop(s: Server): Promise<void> {
  s.proc.kill("SIGTERM");
  await s.proc.exited;
}

/** Signs up, creates a pipeline and a key over HTTP; returns the pipeline id and key. */
async function provision(s: Server): Promise<{ pipelineId: string; key: string }> {
  const jar: { cookie?: string } = {};
  const post = async (path: string, json: unknown) => {
    const res = await s.http(path, { method: "POST", json, jar });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  await post("/api/auth/signup", { email: "bench@example.com", password: "benchmark-password" });
  const pipeline = await post("/api/rag/pipelines", { name: "bench", embeddingModel: "builtin" });
  const key = await post(`/api/rag/pipelines/${pipeline.id}/keys`, { name: "bench" });
  return { pipelineId: pipeline.id, key: key.key };
}

/** Writes N chunks into LanceDB and their documents into SQLite; keeps every vector for brute force. */
async function load(
  dataDir: string,
  pipelineId: string,
  all: Float32Array,
  ids: string[],
): Promise<{ loadMs: number; maintainMs: number }> {
  const conn = await openLance(dataDir);
  const store = new VectorStore(conn, { log: (msg, f) => console.error(`  ${msg}`, JSON.stringify(f ?? {})) });
  const db = new Database(join(dataDir, "ragd.db"));
  const insert = db.prepare(
    `INSERT INTO documents (id, collection_id, type, name, content_length, status, chunk_count, progress_done, progress_total, created_at, updated_at, indexed_at)
     VALUES (?, ?, 'text', ?, ?, 'ready', ?, ?, ?, ?, ?, ?)`,
  );
  const insertText = db.prepare("INSERT INTO document_texts (document_id, content) VALUES (?, ?)");
  const rnd = random(1);
  const started = performance.now();
  const docs = N / CHUNKS_PER_DOC;
  for (let from = 0; from < docs; from += BATCH_DOCS) {
    const rows: ChunkRow[] = [];
    const docRows: [string, string][] = [];
    for (let d = from; d < Math.min(docs, from + BATCH_DOCS); d++) {
      const docId = Bun.randomUUIDv7();
      let content = "";
      const topic = TOPICS[d % TOPICS.length]!;
      for (let c = 0; c < CHUNKS_PER_DOC; c++) {
        const text = sentence(rnd, WORDS_PER_CHUNK, topic);
        const start = content.length;
        content += (c ? "\n" : "") + text;
        const i = d * CHUNKS_PER_DOC + c;
        const vector = all.subarray(i * DIM, (i + 1) * DIM);
        vector.set(embedBuiltin(text));
        ids[i] = `${docId}:${c}`;
        rows.push({
          id: `${docId}:${c}`,
          documentId: docId,
          chunkIndex: c,
          text,
          start: c ? start + 1 : 0,
          end: content.length,
          vector,
        });
      }
      docRows.push([docId, content]);
    }
    await store.replaceDocuments(
      pipelineId,
      1,
      docRows.map(([id]) => id),
      rows,
    );
    const now = new Date().toISOString();
    db.transaction(() => {
      for (const [id, content] of docRows) {
        insert.run(
          id,
          pipelineId,
          `doc ${id.slice(-6)}`,
          content.length,
          CHUNKS_PER_DOC,
          CHUNKS_PER_DOC,
          CHUNKS_PER_DOC,
          now,
          now,
          now,
        );
        insertText.run(id, content);
      }
    })();
    if ((from / BATCH_DOCS) % 10 === 9)
      console.error(`  loaded ${((from + BATCH_DOCS) * CHUNKS_PER_DOC).toLocaleString()} chunks`);
  }
  db.run("UPDATE collections SET embedding_dimensions = ? WHERE id = ?", [DIM, pipelineId]);
  db.close();
  const loadMs = performance.now() - started;
  const t0 = performance.now();
  await store.maintain();
  const maintainMs = performance.now() - t0;
  const table = await conn.openTable(VectorStore.tableName(pipelineId, 1));
  const indices = (await table.listIndices()).map((i) => `${i.indexType}(${i.columns.join(",")})`);
  console.error(`  indexes after maintain: ${indices.join(", ")}; rows ${await table.countRows()}`);
  table.close();
  store.close();
  conn.close();
  return { loadMs, maintainMs };
}

/** Row ids of the k stored vectors with the highest dot product (vectors are unit length). */
function exactTopK(all: Float32Array, ids: string[], q: Float32Array, k: number): Set<string> {
  const best: { i: number; s: number }[] = [];
  let floor = -Infinity;
  for (let i = 0, off = 0; off < all.length; i++, off += DIM) {
    let s = 0;
    for (let j = 0; j < DIM; j++) s += all[off + j]! * q[j]!;
    if (best.length < k || s > floor) {
      best.push({ i, s });
      best.sort((a, b) => b.s - a.s);
      if (best.length > k) best.pop();
      floor = best[best.length - 1]!.s;
    }
  }
  return new Set(best.map((b) => ids[b.i]!));
}

const ms = (x: number) => `${x.toFixed(2)} ms`;

async function main(): Promise<void> {
  await ensureBinary();
  const dataDir = tempDir("ragd-bench-http-");
  const all = new Float32Array(N * DIM);
  let server: Server | null = null;
  try {
    console.error(`provisioning over HTTP in ${dataDir}`);
    server = await serve(dataDir);
    const { pipelineId, key } = await provision(server);
    await stop(server);
    server = null;

    console.error(`writing ${N.toLocaleString()} chunks`);
    const ids: string[] = new Array(N); // row id of each vector in `all`
    const { loadMs, maintainMs } = await load(dataDir, pipelineId, all, ids);

    console.error("restarting the binary");
    server = await serve(dataDir);
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
      const v = embedBuiltin(q);
      embed.push(performance.now() - t0);
      return v;
    });

    const conn = await openLance(dataDir);
    const store = new VectorStore(conn);
    const rawAsk = (vector: Float32Array) =>
      store.search(pipelineId, 1, { mode: "vector", text: "", vector, topK: TOP_K });
    // Warm both sides alike; the server also runs its first upkeep pass 10 s after start: let it pass.
    for (let i = 0; i < 100; i++) {
      const q = queryText();
      await ask(q);
      await rawAsk(embedBuiltin(q));
    }
    await Bun.sleep(Math.max(0, 12_000 - (performance.now() - s.startedAt)));

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
        await rawAsk(vectors[i]!);
        raw.push(performance.now() - t0);
      };
      if (i % 2) await timeRaw().then(timeHttp);
      else await timeHttp().then(timeRaw);
    }
    // The searcher counts the table's rows before each search (an empty index answers [] without embedding).
    const count: number[] = [];
    for (let i = 0; i < QUERIES; i++) {
      const t0 = performance.now();
      await store.countRows(pipelineId, 1);
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
    let httpFound = 0;
    let rawFound = 0;
    for (const q of texts.slice(0, RECALL_QUERIES)) {
      const v = embedBuiltin(q);
      const truth = exactTopK(all, ids, v, TOP_K);
      httpFound += (await ask(q)).results.filter((r) =>
        truth.has(`${r.metadata.sourceId}:${r.metadata.chunkIndex}`),
      ).length;
      rawFound += (await rawAsk(v)).filter((h) => truth.has(`${h.documentId}:${h.chunkIndex}`)).length;
    }
    store.close();
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

    const [l1, l5, l15] = loadavg().map((x) => x.toFixed(2));
    console.log(
      `\nquery-http: ${N.toLocaleString()} ${SHAPE} chunks × ${DIM} dims, vector mode, topK ${TOP_K}, ${QUERIES} sequential queries; load average ${l1} ${l5} ${l15}`,
    );
    console.table({
      "load chunks (s)": (loadMs / 1000).toFixed(1),
      "maintain (s)": (maintainMs / 1000).toFixed(2),
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
      "builtin query embedding": {
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
      "recall@10 HTTP": (httpFound / (RECALL_QUERIES * TOP_K)).toFixed(3),
      "recall@10 raw": (rawFound / (RECALL_QUERIES * TOP_K)).toFixed(3),
      [`throughput, ${CLIENTS} clients (q/s)`]: (ok / elapsed).toFixed(0),
      "throughput errors": errors,
    });
  } finally {
    if (server) await stop(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
