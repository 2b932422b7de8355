/**
 * Query latency with reranking, through the compiled binary and the test
 * reranker (test/support/fake-rerank.ts) answering after a fixed delay.
 *
 *   ./node_modules/.bin/bun bench/rerank.ts [documents] [queries] [latencyMs]
 *
 * Two builtin pipelines of the same SciFact abstracts (1,000 by default), one with a
 * rerankModel. Each of the queries (200) is asked with topK 5 of the plain pipeline,
 * then of the reranked one (which sends its 50 candidates to the reranker), then the
 * same candidates go straight to the reranker: the three timings are interleaved, so
 * a machine busy with other work slows all three alike. Prints p50 of each (the
 * reranker's own time is its delay plus the HTTP round trip) and the ratio of reranked
 * p50 to unreranked p50 + reranker p50 (1.0 = no overhead beyond the reranker itself),
 * and the median of each query's own overhead (reranked − unreranked − reranker), which
 * drifts less with the load of the machine.
 */
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { tempDir } from "../test/support/app";
import { ensureBinary } from "../test/support/binary";
import { startFakeReranker } from "../test/support/fake-rerank";
import { loadCorpus, percentile, pooled, startRagd, waitIdle } from "./support";

const docsN = Number(process.argv[2] ?? 1000);
const queriesN = Number(process.argv[3] ?? 200);
const latencyMs = Number(process.argv[4] ?? 20);

async function main(): Promise<void> {
  await ensureBinary();
  const rr = await startFakeReranker();
  rr.set({ latencyMs });
  const dataDir = tempDir("ragd-rerank-");
  const { server, jar } = await startRagd(dataDir, {
    RAGD_QUERY_RATE: "1000000",
    RAGD_QUERY_BURST: "1000000",
    RAGD_RERANK_URL: rr.url,
  });
  try {
    const keyOf = async (json: Record<string, unknown>) => {
      const p = (await server.http("/api/rag/pipelines", { method: "POST", json, jar })).body;
      const k = await server.http(`/api/rag/pipelines/${p.id}/keys`, { method: "POST", json: { name: "b" }, jar });
      return { id: p.id as string, key: k.body.key as string };
    };
    const plain = await keyOf({ name: "plain" });
    const reranked = await keyOf({ name: "reranked", rerankModel: "bench" });
    const corpus = loadCorpus(docsN);
    for (const p of [plain, reranked]) {
      await pooled(corpus, 8, async (d) => {
        await server.http(`/api/rag/pipelines/${p.id}/sources`, {
          method: "POST",
          json: { type: "text", name: d.id, content: `${d.title}\n\n${d.text}` },
          jar,
        });
      });
      await waitIdle(server, jar, p.id);
    }
    const questions = corpus.slice(0, queriesN).map((d) => d.title);
    const ask = async (key: string, q: string) => {
      const t0 = performance.now();
      const r = await server.http("/api/rag/query", {
        method: "POST",
        json: { query: q, topK: 5 },
        headers: { authorization: `Bearer ${key}` },
      });
      if (r.status !== 200 || (key === reranked.key && r.body.reranked !== true))
        throw new Error(`query: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      return performance.now() - t0;
    };
    const direct = async (q: string, documents: string[]) => {
      const t0 = performance.now();
      await fetch(`${rr.url}/v1/rerank`, {
        method: "POST",
        body: JSON.stringify({ model: "bench", query: q, documents, top_n: documents.length }),
      }).then((r) => r.json());
      return performance.now() - t0;
    };
    for (const q of questions) await Promise.all([ask(plain.key, q), ask(reranked.key, q)]); // warm the caches
    const times = { plain: [] as number[], reranked: [] as number[], reranker: [] as number[] };
    let candidates = 0;
    for (const q of questions) {
      times.plain.push(await ask(plain.key, q));
      times.reranked.push(await ask(reranked.key, q));
      const sent = rr.requests.at(-1)!.documents;
      candidates = sent.length;
      times.reranker.push(await direct(q, sent));
    }
    const [p, r, own] = [times.plain, times.reranked, times.reranker].map((x) => percentile(x, 50));
    const extra = percentile(
      times.reranked.map((x, i) => x - times.plain[i]! - times.reranker[i]!),
      50,
    );
    console.log(
      `\n${docsN} documents, ${questions.length} queries, topK 5, ${candidates} candidates per rerank, ` +
        `reranker delay ${latencyMs} ms; load average ${loadavg()
          .map((x) => x.toFixed(1))
          .join(" ")}`,
    );
    console.table({
      unreranked: { "p50 ms": p!.toFixed(1) },
      reranker: { "p50 ms": own!.toFixed(1) },
      reranked: { "p50 ms": r!.toFixed(1) },
      "reranked / (unreranked + reranker)": { "p50 ms": (r! / (p! + own!)).toFixed(2) },
      "per query: reranked − unreranked − reranker": { "p50 ms": extra!.toFixed(1) },
    });
  } finally {
    server.proc.kill("SIGTERM");
    await server.proc.exited;
    await rr.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
