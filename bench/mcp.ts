/**
 * `search` through MCP over HTTP beside POST /api/rag/query, on the same pipeline
 * of the compiled binary, in the same run (docs/API.md, MCP).
 *
 *   ./node_modules/.bin/bun bench/mcp.ts [documents=1000] [queries=300]
 *
 * Loads SciFact abstracts (generated prose when the datasets are not beside the
 * checkout) as text sources of one builtin pipeline, then runs the same queries
 * (document titles, topK 10, hybrid) one at a time, interleaved: the query
 * endpoint with fetch, MCP `tools/call search` with the official SDK's client
 * (one connected client, as an agent holds it), and the same MCP call as a bare
 * JSON-RPC POST with fetch (the server's share without the SDK client's). A first
 * pass over the queries warms the query-vector cache for all three alike.
 */
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { tempDir } from "../test/support/app";
import { waitFor } from "../test/support/wait";
import { loadCorpus, percentile, pooled, ROOT, startRagd } from "./support";

const DOCS = Number(process.argv[2] ?? 1000);
const QUERIES = Number(process.argv[3] ?? 300);
const TOP_K = 10;

const dataDir = tempDir("ragd-bench-mcp-");
const { server, jar } = await startRagd(dataDir, { RAGD_QUERY_RATE: "1000000", RAGD_QUERY_BURST: "1000000" });
try {
  const corpus = loadCorpus(DOCS);
  const p = await server.http("/api/rag/pipelines", { method: "POST", json: { name: "bench" }, jar });
  const pipelineId = p.body.id as string;
  const key = (await server.http(`/api/rag/pipelines/${pipelineId}/keys`, { method: "POST", json: { name: "b" }, jar }))
    .body.key as string;
  await pooled(corpus, 8, async (d) => {
    const json = { type: "text", name: d.title.slice(0, 200) || d.id, content: `${d.title}\n\n${d.text}` };
    const r = await server.http(`/api/rag/pipelines/${pipelineId}/sources`, { method: "POST", json, jar });
    if (r.status !== 201) throw new Error(`source: ${r.status} ${JSON.stringify(r.body)}`);
  });
  await waitFor(
    "sources ready",
    async () => {
      const list = (await server.http(`/api/rag/pipelines/${pipelineId}/sources`, { jar })).body as {
        status: string;
      }[];
      return list.every((s) => s.status === "ready");
    },
    600_000,
    500,
  );

  const auth = { authorization: `Bearer ${key}` };
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: auth } }),
  );
  const queries = corpus.slice(0, QUERIES).map((d) => d.title || d.text.slice(0, 80));

  const viaQuery = async (q: string) => {
    const r = await fetch(`${server.url}/api/rag/query`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ query: q, topK: TOP_K }),
    });
    if (r.status !== 200) throw new Error(`query: ${r.status}`);
    await r.json();
  };
  const viaSdk = async (q: string) => {
    const r = await client.callTool({ name: "search", arguments: { query: q, topK: TOP_K } });
    if (r.isError) throw new Error(`mcp: ${JSON.stringify(r.content)}`);
  };
  let id = 0;
  const viaRpc = async (q: string) => {
    const r = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: ++id,
        method: "tools/call",
        params: { name: "search", arguments: { query: q, topK: TOP_K } },
      }),
    });
    if (r.status !== 200) throw new Error(`rpc: ${r.status}`);
    await r.json();
  };

  const ways = { query: viaQuery, sdk: viaSdk, rpc: viaRpc };
  const times: Record<keyof typeof ways, number[]> = { query: [], sdk: [], rpc: [] };
  for (const q of queries) for (const run of Object.values(ways)) await run(q); // warm-up
  for (const q of queries) {
    for (const [name, run] of Object.entries(ways) as [keyof typeof ways, (q: string) => Promise<void>][]) {
      const t0 = performance.now();
      await run(q);
      times[name].push(performance.now() - t0);
    }
  }
  await client.close();

  const fmt = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(2)} ms, p95 ${percentile(xs, 95).toFixed(2)} ms`;
  const ratio = (xs: number[]) => (percentile(xs, 50) / percentile(times.query, 50)).toFixed(2);
  console.log(`${corpus.length} sources, ${queries.length} queries each way, topK ${TOP_K}, hybrid, builtin model`);
  console.log(`POST /api/rag/query              ${fmt(times.query)}`);
  console.log(
    `MCP search, SDK client           ${fmt(times.sdk)}  (${ratio(times.sdk)}× the query endpoint; target ≤ 1.2×)`,
  );
  console.log(`MCP search, bare JSON-RPC POST   ${fmt(times.rpc)}  (${ratio(times.rpc)}×)`);
  console.log(`binary size                      ${statSync(join(ROOT, "dist", "ragd")).size.toLocaleString()} bytes`);
} finally {
  server.proc.kill("SIGTERM");
  await server.proc.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
