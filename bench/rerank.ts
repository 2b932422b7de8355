/**
 * Query latency with reranking, through the compiled binary and the test
 * reranker (test/support/fake-rerank.ts) answering after a fixed delay.
 *
 *   ./node_modules/.bin/bun bench/rerank.ts [documents] [queries] [latencyMs]
 *
 * One builtin pipeline of SciFact abstracts (1,000 by default); the same queries
 * (200) are asked with topK 5 unreranked, then with a rerankModel set, so each
 * query sends its 50 candidates to the reranker. Prints p50 of both, the
 * reranker's own p50 as the binary sees it (its delay plus the HTTP round trip,
 * measured by timing the fake directly), and the ratio of reranked p50 to
 * unreranked p50 + reranker p50 (1.0 = no overhead beyond the reranker itself).
 */
import { rmSync } from "node:fs";
import { tempDir } from "../test/support/app";
import { ensureBinary, startBinary } from "../test/support/binary";
import { startFakeReranker } from "../test/support/fake-rerank";
import { loadCorpus, percentile, pooled, waitIdle } from "./support";

const docsN = Number(process.argv[2] ?? 1000);
const queriesN = Number(process.argv[3] ?? 200);
const latencyMs = Number(process.argv[4] ?? 20);

async function main(): Promise<void> {
  await ensureBinary();
  const rr = await startFakeReranker();
  rr.set({ latencyMs });
  const dataDir = tempDir("ragd-rerank-");
  const server = await startBinary(dataDir, {
    RAGD_QUERY_RATE: "1000000",
    RAGD_QUERY_BURST: "1000000",
    RAGD_RERANK_URL: rr.url,
  });
  try {
    const jar: { cookie?: string } = {};
    await server.http("/api/auth/signup", {
      method: "POST",
      json: { email: "rerank@example.com", password: "benchmark-password" },
      jar,
    });
    const p = (await server.http("/api/rag/pipelines", { method: "POST", json: { name: "rerank" }, jar })).body;
    const key = (await server.http(`/api/rag/pipelines/${p.id}/keys`, { method: "POST", json: { name: "b" }, jar }))
      .body.key as string;
    const corpus = loadCorpus(docsN);
    await pooled(corpus, 8, async (d) => {
      await server.http(`/api/rag/pipelines/${p.id}/sources`, {
        method: "POST",
        json: { type: "text", name: d.id, content: `${d.title}\n\n${d.text}` },
        jar,
      });
    });
    await waitIdle(server, jar, p.id);
    const questions = corpus.slice(0, queriesN).map((d) => d.title);
    const run = async () => {
      const times: number[] = [];
      for (const q of questions) {
        const t0 = performance.now();
        const r = await server.http("/api/rag/query", {
          method: "POST",
          json: { query: q, topK: 5 },
          headers: { authorization: `Bearer ${key}` },
        });
        times.push(performance.now() - t0);
        if (r.status !== 200) throw new Error(`query: ${r.status}`);
      }
      return percentile(times, 50);
    };
    await run(); // warm the caches
    const plain = await run();
    await server.http(`/api/rag/pipelines/${p.id}`, { method: "PATCH", json: { rerankModel: "bench" }, jar });
    const before = rr.requests.length;
    const reranked = await run();
    const sent = rr.requests.slice(before);
    const docs = sent[0]!.documents;
    const own: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now();
      await fetch(`${rr.url}/v1/rerank`, {
        method: "POST",
        body: JSON.stringify({ model: "bench", query: questions[i], documents: docs, top_n: docs.length }),
      }).then((r) => r.json());
      own.push(performance.now() - t0);
    }
    const ownP50 = percentile(own, 50);
    console.log(
      `\n${docsN} documents, ${questions.length} queries, topK 5, ${docs.length} candidates per rerank, reranker delay ${latencyMs} ms`,
    );
    console.table({
      unreranked: { "p50 ms": plain.toFixed(1) },
      reranker: { "p50 ms": ownP50.toFixed(1) },
      reranked: { "p50 ms": reranked.toFixed(1) },
      "reranked / (unreranked + reranker)": { "p50 ms": (reranked / (plain + ownP50)).toFixed(2) },
    });
  } finally {
    server.proc.kill("SIGTERM");
    await server.proc.exited;
    await rr.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
