/**
 * Retrieval quality on BEIR SciFact, end to end through the compiled binary.
 *
 *   ./node_modules/.bin/bun bench/scifact.ts [chunkSize]
 *
 * Ingests the 5,183 abstracts of ../shared/datasets/scifact/corpus.jsonl as text
 * sources (title + "\n\n" + text, named by corpus id) into one builtin pipeline over
 * HTTP, 8 requests at a time; then asks the 300 test queries (qrels/test.tsv) in
 * each mode with topK 100 and prints nDCG@10 and recall@100 (BEIR definitions, as
 * pytrec_eval computes them: gain = graded relevance, log2 discount, recall over the
 * relevant documents of the query). A document ranks where its best chunk ranks.
 * chunkSize defaults to the pipeline default (1000 characters, overlap 200).
 * Reference: BM25 nDCG@10 ≈ 0.665 on SciFact.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { tempDir } from "../test/support/app";
import { ensureBinary, startBinary, type RunningBinary } from "../test/support/binary";
import { DATASETS, loadCorpus, percentile, pooled, waitIdle } from "./support";

const DIR = join(DATASETS, "scifact");
const MODES = ["keyword", "vector", "hybrid"] as const;
const TOP_K = 100;
const CONCURRENCY = 8;
const chunkSize = process.argv[2] ? Number(process.argv[2]) : undefined;

const readJsonl = <T>(path: string): T[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);

/** query id → (corpus id → relevance) from a BEIR qrels file. */
function readQrels(path: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const line of readFileSync(path, "utf8").split("\n").slice(1)) {
    const [q, d, s] = line.split("\t");
    if (!q || !d) continue;
    if (!out.has(q)) out.set(q, new Map());
    out.get(q)!.set(d, Number(s));
  }
  return out;
}

/** nDCG@k with linear gain, as trec_eval's ndcg_cut. */
function ndcg(ranked: string[], rel: Map<string, number>, k: number): number {
  const dcg = ranked.slice(0, k).reduce((sum, d, i) => sum + (rel.get(d) ?? 0) / Math.log2(i + 2), 0);
  const ideal = [...rel.values()]
    .filter((r) => r > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  const idcg = ideal.reduce((sum, r, i) => sum + r / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

function recall(ranked: string[], rel: Map<string, number>, k: number): number {
  const relevant = [...rel].filter(([, r]) => r > 0).map(([d]) => d);
  const top = new Set(ranked.slice(0, k));
  return relevant.length ? relevant.filter((d) => top.has(d)).length / relevant.length : 0;
}

/** POSTs with the session cookie; retries a 429 (full ingestion queue) after its Retry-After. */
async function post(server: RunningBinary, jar: { cookie?: string }, path: string, json: unknown) {
  for (;;) {
    const r = await server.http(path, { method: "POST", json, jar });
    if (r.status !== 429) return r;
    await Bun.sleep(1000 * Number(r.headers.get("retry-after") ?? 1));
  }
}

async function main(): Promise<void> {
  if (!existsSync(join(DIR, "corpus.jsonl"))) {
    console.log(`SciFact not found at ${DIR}; skipping.`);
    return;
  }
  const corpus = loadCorpus();
  const qrels = readQrels(join(DIR, "qrels", "test.tsv"));
  const queries = readJsonl<{ _id: string; text: string }>(join(DIR, "queries.jsonl")).filter((q) => qrels.has(q._id));

  await ensureBinary();
  const dataDir = tempDir("ragd-scifact-");
  const server = await startBinary(dataDir, { RAGD_QUERY_RATE: "1000000", RAGD_QUERY_BURST: "1000000" });
  try {
    const jar: { cookie?: string } = {};
    await post(server, jar, "/api/auth/signup", { email: "scifact@example.com", password: "benchmark-password" });
    const settings = chunkSize ? { chunkSize, chunkOverlap: Math.floor(chunkSize / 5) } : {};
    const pipeline = (
      await post(server, jar, "/api/rag/pipelines", { name: "scifact", embeddingModel: "builtin", ...settings })
    ).body;
    const key = (await post(server, jar, `/api/rag/pipelines/${pipeline.id}/keys`, { name: "bench" })).body
      .key as string;

    console.error(`ingesting ${corpus.length} abstracts over HTTP`);
    const t0 = performance.now();
    await pooled(corpus, CONCURRENCY, async (d) => {
      const r = await post(server, jar, `/api/rag/pipelines/${pipeline.id}/sources`, {
        type: "text",
        name: d.id,
        content: `${d.title}\n\n${d.text}`,
      });
      if (r.status !== 201) throw new Error(`source ${d.id}: ${r.status} ${JSON.stringify(r.body)}`);
    });
    const postedMs = performance.now() - t0;
    const p = await waitIdle(server, jar, pipeline.id);
    const ingestMs = performance.now() - t0;
    const sources = (await server.http(`/api/rag/pipelines/${pipeline.id}/sources`, { jar })).body as {
      status: string;
      chunkCount: number;
    }[];
    const failed = sources.filter((s) => s.status !== "ready").length;
    const chunks = sources.reduce((n, s) => n + s.chunkCount, 0);
    console.error(`ingested: pipeline ${p.status}, ${sources.length} sources (${failed} not ready), ${chunks} chunks`);

    const rows: Record<string, Record<string, string>> = {};
    for (const mode of MODES) {
      let n10 = 0;
      let r100 = 0;
      const times: number[] = [];
      for (const q of queries) {
        const s = performance.now();
        const r = await server.http("/api/rag/query", {
          method: "POST",
          json: { query: q.text, topK: TOP_K, mode },
          headers: { authorization: `Bearer ${key}` },
        });
        times.push(performance.now() - s);
        if (r.status !== 200) throw new Error(`query ${q._id} (${mode}): ${r.status} ${JSON.stringify(r.body)}`);
        const ranked = [
          ...new Set((r.body.results as { metadata: { sourceName: string } }[]).map((x) => x.metadata.sourceName)),
        ];
        n10 += ndcg(ranked, qrels.get(q._id)!, 10);
        r100 += recall(ranked, qrels.get(q._id)!, 100);
      }
      rows[mode] = {
        "nDCG@10": (n10 / queries.length).toFixed(3),
        "recall@100": (r100 / queries.length).toFixed(3),
        "p50 query": `${percentile(times, 50).toFixed(1)} ms`,
      };
    }
    const [l1, l5, l15] = loadavg().map((x) => x.toFixed(2));
    console.log(
      `\nSciFact (BEIR test): ${corpus.length} abstracts → ${chunks} chunks (chunkSize ${chunkSize ?? "default"}), ${queries.length} queries, topK ${TOP_K} chunks per query; ` +
        `ingest over HTTP ${(ingestMs / 1000).toFixed(1)} s (POSTs done at ${(postedMs / 1000).toFixed(1)} s, ${(corpus.length / (ingestMs / 1000)).toFixed(0)} docs/s); load average ${l1} ${l5} ${l15}`,
    );
    console.table(rows);
    console.log("reference: BM25 nDCG@10 ≈ 0.665");
  } finally {
    server.proc.kill("SIGTERM");
    await server.proc.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
