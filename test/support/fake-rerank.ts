/**
 * A reranking server for tests, answering `POST /v1/rerank` {model, query,
 * documents, top_n} with {results: [{index, relevance_score}]} best first, as
 * Hugging Face TEI, vLLM, llama.cpp's server and Infinity do. Its score is the
 * share of the document's words that are query words, so its order differs from
 * BM25's and is easy to predict. Switches: latency, an HTTP error, wrong shapes,
 * and downtime (the port stops listening).
 *
 * @example
 *   const rr = await startFakeReranker();
 *   rr.set({ mode: "fewer" });
 *   await rr.down();
 */
import type { Server } from "bun";

export type Scorer = (query: string, doc: string) => number;

export type RerankMode = "ok" | "error500" | "badShape" | "fewer" | "badIndex" | "nanScore";

export interface FakeReranker {
  url: string;
  /** Bodies received, newest last. */
  requests: { model: string; query: string; documents: string[]; top_n: number }[];
  /** `scorer` replaces fakeRelevance, e.g. to give an order unlike BM25's. */
  set(s: { mode?: RerankMode; latencyMs?: number; scorer?: Scorer }): void;
  down(): Promise<void>;
  up(): void;
  stop(): Promise<void>;
}

const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** The fake's relevance: the share of a document's words that are in the query. */
export function fakeRelevance(query: string, doc: string): number {
  const q = new Set(words(query));
  const d = words(doc);
  return d.length ? d.filter((w) => q.has(w)).length / d.length : 0;
}

export async function startFakeReranker(): Promise<FakeReranker> {
  let mode: RerankMode = "ok";
  let latencyMs = 0;
  let scorer: Scorer = fakeRelevance;
  const requests: FakeReranker["requests"] = [];
  const handler = async (req: Request) => {
    const url = new URL(req.url);
    if (req.method !== "POST" || url.pathname !== "/v1/rerank") return new Response("not found", { status: 404 });
    const body = (await req.json()) as FakeReranker["requests"][number];
    requests.push(body);
    if (latencyMs) await Bun.sleep(latencyMs);
    if (mode === "error500") return Response.json({ error: "model crashed" }, { status: 500 });
    if (mode === "badShape") return Response.json({ data: [] });
    const scored = body.documents
      .map((d, index) => ({ index, relevance_score: scorer(body.query, d) }))
      .sort((a, b) => b.relevance_score - a.relevance_score)
      .slice(0, body.top_n);
    if (mode === "fewer") scored.pop();
    if (mode === "badIndex" && scored[0]) scored[0].index = body.documents.length + 3;
    if (mode === "nanScore" && scored[0]) (scored[0] as { relevance_score: unknown }).relevance_score = "high";
    return Response.json({ results: scored });
  };
  let server: Server<undefined> | null = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handler });
  const port = server.port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    set(s) {
      if (s.mode) mode = s.mode;
      if (s.latencyMs !== undefined) latencyMs = s.latencyMs;
      if (s.scorer) scorer = s.scorer;
    },
    async down() {
      await server?.stop(true);
      server = null;
    },
    up() {
      server ??= Bun.serve({ hostname: "127.0.0.1", port, fetch: handler });
    },
    async stop() {
      await server?.stop(true);
      server = null;
    },
  };
}
