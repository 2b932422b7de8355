/**
 * The MCP endpoint as agents use it: the official SDK's client against the
 * compiled binary over HTTP (docs/API.md, MCP).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { tempDir } from "./support/app";
import { ensureBinary, startBinary, type RunningBinary } from "./support/binary";
import { connectHttp, jsonOf, newKey, type Tenant, tenant, textOf, waitReady } from "./support/mcp";

const filler = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `Section ${i} on ${topic}: routine notes about desks, lunches and parking.`).join(
    "\n\n",
  );
const FACT = "The launch code for Project Heron is AZURE-7741, kept by the night porter.";
const HANDBOOK = `${filler("office life", 60)}\n\n${FACT}\n\n${filler("travel", 60)}`;
const OTHER = "Confidential: the vault combination of the other company is 31-12-88.";

let dataDir: string;
let server: RunningBinary;
let a: Tenant;
let b: Tenant;
let client: Client;

beforeAll(async () => {
  await ensureBinary();
  dataDir = tempDir("ragd-mcp-");
  server = await startBinary(dataDir);
  a = await tenant(server, "alice", { Handbook: HANDBOOK });
  b = await tenant(server, "bob", { Vault: OTHER });
  client = await connectHttp(server.url, a.key);
}, 120_000);

afterAll(async () => {
  await client?.close();
  server?.proc.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

describe("MCP over Streamable HTTP", () => {
  test("initialize names the server and lists the tools with their schemas", async () => {
    expect(client.getServerVersion()?.name).toBe("ragd");
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()]).toEqual(expect.arrayContaining(["search", "read", "list_sources"]));
    expect(Object.keys(byName.get("search")!.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(["query", "topK", "mode", "filter"]),
    );
    expect(byName.get("search")!.inputSchema.required).toEqual(["query"]);
    expect(byName.get("read")!.inputSchema.required).toEqual(["sourceId"]);
    for (const t of tools) expect(t.description!.length).toBeGreaterThan(100);
  });

  test("search finds a written fact, with offsets that point into the source's text", async () => {
    const r = jsonOf(
      await client.callTool({ name: "search", arguments: { query: "launch code Project Heron", topK: 3 } }),
    );
    expect(r.topK).toBe(3);
    const hit = r.results[0];
    expect(hit.text).toContain("AZURE-7741");
    expect(hit).toMatchObject({ sourceId: a.sources.Handbook, sourceName: "Handbook" });
    expect(hit.score).toBeGreaterThan(0);
    expect(hit.score).toBeLessThanOrEqual(1);
    expect(Number.isInteger(hit.chunkIndex)).toBe(true);
    expect(HANDBOOK.slice(hit.start, hit.end)).toBe(hit.text);
    expect(hit.metadata.sourceType).toBe("text");
    // Where the pipeline's owner sees that chunk in the dashboard.
    expect(hit.sourcePage).toBe(
      `${server.url}/#/pipelines/${a.pipelineId}/sources/${a.sources.Handbook}?chunk=${hit.chunkIndex}`,
    );
  });

  test("read returns the span around a hit, and its offsets agree with the source", async () => {
    const hit = jsonOf(await client.callTool({ name: "search", arguments: { query: "AZURE-7741", mode: "keyword" } }))
      .results[0];
    const start = Math.max(0, hit.start - 300);
    const end = hit.end + 300;
    const span = jsonOf(await client.callTool({ name: "read", arguments: { sourceId: hit.sourceId, start, end } }));
    expect(span).toMatchObject({ sourceId: a.sources.Handbook, start, end, length: HANDBOOK.length, rebuilt: false });
    expect(span.text).toBe(HANDBOOK.slice(start, end));
    expect(span.text).toContain(FACT);
    expect(span.more).toBe(true);
  });

  test("read is bounded to 8,000 characters and says there is more", async () => {
    const span = jsonOf(
      await client.callTool({ name: "read", arguments: { sourceId: a.sources.Handbook, end: 50_000 } }),
    );
    expect(HANDBOOK.length).toBeGreaterThan(8000);
    expect(span).toMatchObject({ start: 0, end: 8000, more: true });
    expect(span.text).toBe(HANDBOOK.slice(0, 8000));
    const rest = jsonOf(
      await client.callTool({ name: "read", arguments: { sourceId: a.sources.Handbook, start: 8000 } }),
    );
    expect(rest).toMatchObject({ start: 8000, end: HANDBOOK.length, more: false });
  });

  test("list_sources lists the pipeline's sources, and only them", async () => {
    const r = jsonOf(await client.callTool({ name: "list_sources", arguments: {} }));
    expect(r).toMatchObject({ page: 1, total: 1, totalPages: 1 });
    expect(r.sources).toEqual([
      expect.objectContaining({ id: a.sources.Handbook, name: "Handbook", status: "ready", type: "text" }),
    ]);
    const none = jsonOf(await client.callTool({ name: "list_sources", arguments: { status: "failed" } }));
    expect(none.sources).toEqual([]);
  });

  test("list_sources pages 50 at a time, oldest first, and counts every source", async () => {
    const names = Array.from({ length: 52 }, (_, i) => `note ${String(i).padStart(2, "0")}`);
    const c = await tenant(server, "carol", Object.fromEntries(names.map((n) => [n, `Short note ${n}.`])));
    const mcp = await connectHttp(server.url, c.key);
    try {
      const first = jsonOf(await mcp.callTool({ name: "list_sources", arguments: {} }));
      const second = jsonOf(await mcp.callTool({ name: "list_sources", arguments: { page: 2 } }));
      expect(first).toMatchObject({ page: 1, pageSize: 50, total: 52, totalPages: 2 });
      expect(second).toMatchObject({ page: 2, total: 52, totalPages: 2 });
      const listed = [...first.sources, ...second.sources].map((s: { name: string }) => s.name);
      expect(listed).toEqual(names);
      const ready = jsonOf(await mcp.callTool({ name: "list_sources", arguments: { status: "ready", page: 2 } }));
      expect(ready).toMatchObject({ total: 52, sources: [{ name: "note 50" }, { name: "note 51" }] });
    } finally {
      await mcp.close();
    }
  }, 60_000);

  test("another pipeline's source is neither readable nor searchable", async () => {
    const read = await client.callTool({ name: "read", arguments: { sourceId: b.sources.Vault } });
    expect(read.isError).toBe(true);
    expect(textOf(read)).toBe("source not found");
    const found = jsonOf(
      await client.callTool({
        name: "search",
        arguments: { query: "vault combination", filter: { sourceIds: [b.sources.Vault] } },
      }),
    );
    expect(found.results).toEqual([]);
  });

  const bad: [string, string, Record<string, unknown>, RegExp][] = [
    ["an empty sourceId", "read", { sourceId: "", start: 0 }, /sourceId/],
    ["a negative start", "read", { start: -1 }, /^start: must be at least 0$/],
    ["a start that is not an integer", "read", { start: 1.5 }, /^start: must be an integer$/],
    ["a missing query", "search", {}, /^query: is required$/],
    ["an unknown argument", "search", { query: "x", limit: 3 }, /^limit: unknown argument$/],
    ["an unknown mode", "search", { query: "x", mode: "fuzzy" }, /^mode: must be one of: vector, keyword, hybrid$/],
    ["a start past the text", "read", { start: 10_000_000 }, /beyond the end of the source/],
    ["an end before the start", "read", { start: 50, end: 10 }, /end: must be greater than start/],
    ["a query of the wrong type", "search", { query: 42 }, /query/],
    ["a blank query", "search", { query: "   " }, /query: must not be empty/],
    [
      "a query too long",
      "search",
      { query: "word ".repeat(1601) },
      /query: must be at most 8000 characters after trimming/,
    ],
    ["an unknown filter key", "search", { query: "x", filter: { tags: ["a"] } }, /tags|unrecognized/i],
    ["an unknown tool", "delete_everything", {}, /delete_everything not found/],
  ];
  test.each(bad)("%s is a tool error with the documented error", async (_what, name, args, message) => {
    const full = name === "read" && !("sourceId" in args) ? { sourceId: a.sources.Handbook, ...args } : args;
    const r = await client.callTool({ name, arguments: full });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(message);
    // Also when the arguments' schema refuses them before the tool runs.
    expect(r.structuredContent).toEqual({ error: { code: expect.any(String), message: textOf(r) } });
  });
});

describe("read on a file source", () => {
  test("rebuilds the span from the indexed chunks, every word where the offsets say", async () => {
    const text = `${filler("the warehouse", 80)}\n\nThe forklift licence number is FL-20931.\n\n${filler("the yard", 80)}`;
    const bytes = new TextEncoder().encode(text);
    const s = await server.http(`/api/rag/pipelines/${a.pipelineId}/sources`, {
      method: "POST",
      json: { type: "file", fileName: "warehouse.txt", fileSize: bytes.length },
      jar: a.jar,
    });
    expect((await fetch(s.body.uploadUrl, { method: "PUT", body: bytes })).status).toBe(200);
    await waitReady(server, a.jar, a.pipelineId);
    const hit = jsonOf(await client.callTool({ name: "search", arguments: { query: "FL-20931", mode: "keyword" } }))
      .results[0];
    expect(hit).toMatchObject({ sourceId: s.body.id, sourceName: "warehouse.txt" });
    expect(text.slice(hit.start, hit.end)).toBe(hit.text);
    const start = Math.max(0, hit.start - 2500);
    const span = jsonOf(
      await client.callTool({ name: "read", arguments: { sourceId: s.body.id, start, end: hit.end + 2500 } }),
    );
    expect(span).toMatchObject({ start, end: hit.end + 2500, rebuilt: true });
    const words = (x: string) => x.split(/\s+/).filter(Boolean);
    expect(span.text.length).toBe(span.end - span.start);
    expect(words(span.text)).toEqual(words(text.slice(span.start, span.end)));
    expect(span.text).toContain("FL-20931");
  });
});

describe("keys on the MCP endpoint", () => {
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
  };
  const post = (headers: Record<string, string>) =>
    fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(initialize),
    });

  test("no key or a bad key is 401 with the error body, before any MCP exchange", async () => {
    const cases: Record<string, string>[] = [
      {},
      { authorization: "Bearer rag_nope" },
      { authorization: `Bearer rag_${"x".repeat(40)}` },
    ];
    for (const headers of cases) {
      const res = await post(headers);
      expect(res.status).toBe(401);
      expect((await res.json()).error.code).toBe("invalid_api_key");
    }
    expect((await post({ authorization: `Bearer ${a.key}` })).status).toBe(200);
  });

  test("a key revoked mid-session fails the next call", async () => {
    const key = await newKey(server, a.jar, a.pipelineId);
    const c = await connectHttp(server.url, key);
    expect(jsonOf(await c.callTool({ name: "list_sources", arguments: {} })).total).toBeGreaterThan(0);
    const keys = await server.http(`/api/rag/pipelines/${a.pipelineId}/keys`, { jar: a.jar });
    const id = (keys.body as { id: string; prefix: string }[]).find((k) => key.startsWith(k.prefix))!.id;
    await server.http(`/api/rag/pipelines/${a.pipelineId}/keys/${id}`, { method: "DELETE", jar: a.jar });
    await expect(c.callTool({ name: "list_sources", arguments: {} })).rejects.toThrow(/401|revoked/);
    await c.close();
  });

  test("GET has no event stream to offer: 405", async () => {
    const res = await fetch(`${server.url}/mcp`, { headers: { authorization: `Bearer ${a.key}` } });
    expect(res.status).toBe(405);
  });
});

describe("the key's rate limit", () => {
  let dir: string;
  let slow: RunningBinary;
  beforeAll(async () => {
    dir = tempDir("ragd-mcp-rate-");
    slow = await startBinary(dir, { RAGD_QUERY_RATE: "1", RAGD_QUERY_BURST: "3" });
  }, 60_000);
  afterAll(() => {
    slow?.proc.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  const listSources = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "list_sources" } });
  const post = (key: string, body: unknown) =>
    fetch(`${slow.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(body),
    });

  test("applies to MCP calls: 429 rate_limited with Retry-After", async () => {
    const t = await tenant(slow, "dave", {});
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 6 && !limited; i++) {
      const res = await post(t.key, listSources(1));
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(limited?.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await limited!.json()).error.code).toBe("rate_limited");
  });

  test("counts every message of a batch: all of them are let in, or none", async () => {
    const t = await tenant(slow, "erin", {});
    const batch = (n: number) =>
      post(
        t.key,
        Array.from({ length: n }, (_, i) => listSources(i + 1)),
      );
    const tooMany = await batch(4);
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).error).toMatchObject({
      code: "invalid_request",
      message: expect.stringMatching(/at most 3/),
    });
    const full = await batch(3);
    expect(full.status).toBe(200);
    expect(await full.json()).toHaveLength(3);
    const over = await batch(2);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await over.json()).error.code).toBe("rate_limited");
  });
});
