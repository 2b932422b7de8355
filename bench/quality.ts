/**
 * Shared harness of the retrieval-quality benchmarks (bench/scifact.ts,
 * bench/squad.ts): ingest a corpus as text sources into one pipeline of the
 * compiled binary over HTTP, ask every query in each mode and score the ranking.
 *
 * Metrics (BEIR definitions, as pytrec_eval computes them): nDCG@10 with graded
 * gain and log2 discount, recall@100 over the relevant documents of the query,
 * hit@1 = the first document is relevant (src/retrieval/metrics.ts, shared with the
 * evaluation API). A document ranks where its best chunk
 * ranks. `--dump file` writes every query's ranked chunks per mode as JSONL, for
 * tuning fusion offline (bench/fusion-tune.ts). `--model name` sets the pipeline's
 * embedding model (default builtin-glove); a model that is not built in is served by
 * the test Ollama (test/support/fake-ollama.ts), whose vectors are pseudo-random unit
 * vectors seeded by the text — a stand-in for the path, not for a model's quality.
 * The last row reranks hybrid's candidates through the test reranker
 * (test/support/fake-rerank.ts: the share of a chunk's words that are query words).
 */
import { rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { tempDir } from "../test/support/app";
import { ensureBinary, startBinary, type RunningBinary } from "../test/support/binary";
import { distinctInOrder, hitAt, ndcg, recall } from "../src/retrieval/metrics";
import { startFakeOllama } from "../test/support/fake-ollama";
import { startFakeReranker } from "../test/support/fake-rerank";
import { isBuiltinModel } from "../src/embed/models";
import { LEGACY } from "../src/text/languages";
import { makeLegacy, percentile, pooled, START_TIMEOUT_MS, waitIdle } from "./support";

export interface BenchDoc {
  id: string;
  content: string;
}

export interface BenchQuery {
  id: string;
  text: string;
  /** corpus id → graded relevance */
  rel: Map<string, number>;
}

export interface QualityRun {
  name: string;
  docs: BenchDoc[];
  queries: BenchQuery[];
  pipeline?: Record<string, unknown>;
  /** Extra request fields per row label, e.g. {"hybrid α 0.3": {mode: "hybrid", hybridAlpha: 0.3}}. */
  rows?: Record<string, Record<string, unknown>>;
  /** The pipeline's embedding model; builtin-glove when absent. */
  model?: string;
  /**
   * The pipeline's `language`; `legacy` makes it a pipeline as made before the setting
   * existed (its row rewritten in the data dir's database before anything is ingested).
   */
  language?: string;
}

const TOP_K = 100;
const CONCURRENCY = 8;

/** POSTs with the session cookie; retries a 429 (full ingestion queue) after its Retry-After. */
async function post(server: RunningBinary, jar: { cookie?: string }, path: string, json: unknown) {
  for (;;) {
    const r = await server.http(path, { method: "POST", json, jar });
    if (r.status !== 429) return r;
    await Bun.sleep(1000 * Number(r.headers.get("retry-after") ?? 1));
  }
}

type Hit = { score: number; metadata: { sourceName: string; chunkIndex: number } };

/** Runs one benchmark end to end and prints its table; `dump` is a JSONL path or undefined. */
export async function runQuality(run: QualityRun, dump?: string): Promise<void> {
  await ensureBinary();
  const dataDir = tempDir("ragd-quality-");
  const model = run.model ?? "builtin-glove";
  const remote = isBuiltinModel(model) ? null : await startFakeOllama({ models: { [model]: 384 } });
  const reranker = await startFakeReranker();
  const server = await startBinary(
    dataDir,
    {
      RAGD_QUERY_RATE: "1000000",
      RAGD_QUERY_BURST: "1000000",
      RAGD_RERANK_URL: reranker.url,
      ...(remote ? { RAGD_OLLAMA_URL: remote.url } : {}),
    },
    undefined,
    START_TIMEOUT_MS,
  );
  try {
    const jar: { cookie?: string } = {};
    await post(server, jar, "/api/auth/signup", { email: "quality@example.com", password: "benchmark-password" });
    const language = run.language && run.language !== LEGACY ? { language: run.language } : {};
    const pipeline = (
      await post(server, jar, "/api/rag/pipelines", {
        name: run.name,
        embeddingModel: model,
        ...language,
        ...run.pipeline,
      })
    ).body;
    if (run.language === LEGACY) makeLegacy(dataDir, pipeline.id);
    const key = (await post(server, jar, `/api/rag/pipelines/${pipeline.id}/keys`, { name: "bench" })).body
      .key as string;
    console.error(`ingesting ${run.docs.length} documents over HTTP`);
    const t0 = performance.now();
    await pooled(run.docs, CONCURRENCY, async (d) => {
      const r = await post(server, jar, `/api/rag/pipelines/${pipeline.id}/sources`, {
        type: "text",
        name: d.id,
        content: d.content,
      });
      if (r.status !== 201) throw new Error(`source ${d.id}: ${r.status} ${JSON.stringify(r.body)}`);
    });
    const p = await waitIdle(server, jar, pipeline.id);
    const ingestMs = performance.now() - t0;
    const rowsSpec = run.rows ?? {
      keyword: { mode: "keyword" },
      vector: { mode: "vector" },
      hybrid: {},
      "hybrid, diversity 0.3": { diversity: 0.3 },
      "hybrid + rerank": { rerank: true },
    };
    const table: Record<string, Record<string, string>> = {};
    const dumped: string[] = [];
    for (const [label, { rerank, ...extra }] of Object.entries(rowsSpec)) {
      // Reranking is a pipeline setting: switched on for the rows that ask for it.
      const rerankModel = rerank ? "bench" : null;
      await server.http(`/api/rag/pipelines/${pipeline.id}`, { method: "PATCH", json: { rerankModel }, jar });
      let n10 = 0;
      let r100 = 0;
      let h1 = 0;
      const times: number[] = [];
      for (const q of run.queries) {
        const s = performance.now();
        const r = await server.http("/api/rag/query", {
          method: "POST",
          json: { query: q.text, topK: TOP_K, ...extra },
          headers: { authorization: `Bearer ${key}` },
        });
        times.push(performance.now() - s);
        if (r.status !== 200) throw new Error(`query ${q.id} (${label}): ${r.status} ${JSON.stringify(r.body)}`);
        const hits = r.body.results as Hit[];
        const ranked = distinctInOrder(hits.map((x) => x.metadata.sourceName));
        n10 += ndcg(ranked, q.rel, 10);
        r100 += recall(ranked, q.rel, 100);
        h1 += hitAt(ranked, q.rel, 1);
        if (dump) {
          const list = hits.map((x) => [`${x.metadata.sourceName}#${x.metadata.chunkIndex}`, x.score]);
          dumped.push(JSON.stringify({ q: q.id, label, list }));
        }
      }
      const n = run.queries.length;
      table[label] = {
        "nDCG@10": (n10 / n).toFixed(3),
        "hit@1": (h1 / n).toFixed(3),
        "recall@100": (r100 / n).toFixed(3),
        "p50 query": `${percentile(times, 50).toFixed(1)} ms`,
      };
    }
    if (dump) writeFileSync(dump, `${dumped.join("\n")}\n`);
    const [l1, l5, l15] = loadavg().map((x) => x.toFixed(2));
    console.log(
      `\n${run.name}, ${model}, language ${run.language ?? "auto"}: ${run.docs.length} documents → ${p.chunkCount ?? "?"} chunks, ${run.queries.length} queries, topK ${TOP_K}; ` +
        `ingest ${(ingestMs / 1000).toFixed(1)} s; load average ${l1} ${l5} ${l15}`,
    );
    console.table(table);
  } finally {
    server.proc.kill("SIGTERM");
    await server.proc.exited;
    await remote?.stop();
    await reranker.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `--dump file` and `--model name` from argv, and the remaining positional arguments. */
export function benchArgs(): { dump?: string; model?: string; rest: string[] } {
  const args = process.argv.slice(2);
  const take = (flag: string) => {
    const i = args.indexOf(flag);
    return i >= 0 ? args.splice(i, 2)[1] : undefined;
  };
  const dump = take("--dump");
  const model = take("--model");
  return { dump, model, rest: args };
}
