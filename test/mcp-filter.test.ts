/**
 * Metadata filters over MCP (docs/API.md, MCP): `search`'s filter.metadata, the
 * keys named in its description, and `list_metadata`, through the compiled binary
 * and the official SDK client.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { tempDir } from "./support/app";
import { ensureBinary, type RunningBinary, startBinary } from "./support/binary";
import { connectHttp, jsonOf, type Tenant, tenant, textOf, waitReady } from "./support/mcp";
import { waitFor } from "./support/wait";

const DOCS = {
  "HR policy": {
    content: "Parental leave is twelve weeks at full pay for every employee.",
    metadata: { team: "hr", year: 2024, tags: ["policy", "leave"] },
  },
  "Legal memo": {
    content: "Parental leave clauses in supplier contracts must be reviewed yearly.",
    metadata: { team: "legal", year: 2022, tags: ["contract"] },
  },
  "Eng notes": {
    content: "Engineers on parental leave hand their pager to the next on call.",
    metadata: { team: "eng", year: 2025, draft: true },
  },
};

let dataDir: string;
let server: RunningBinary;
let a: Tenant;
let b: Tenant;
let client: Client;

async function addSource(t: Tenant, name: string, content: string, metadata: Record<string, unknown>) {
  const s = await server.http(`/api/rag/pipelines/${t.pipelineId}/sources`, {
    method: "POST",
    json: { type: "text", name, content, metadata },
    jar: t.jar,
  });
  if (s.status !== 201) throw new Error(`source: ${JSON.stringify(s.body)}`);
  t.sources[name] = s.body.id;
}

beforeAll(async () => {
  await ensureBinary();
  dataDir = tempDir("ragd-mcp-filter-");
  server = await startBinary(dataDir);
  a = await tenant(server, "alice", {});
  for (const [name, d] of Object.entries(DOCS)) await addSource(a, name, d.content, d.metadata);
  await waitReady(server, a.jar, a.pipelineId);
  b = await tenant(server, "bob", {});
  await addSource(b, "Vault", "The vault combination is 31-12-88.", { vaultCode: "red", floor: 3 });
  await waitReady(server, b.jar, b.pipelineId);
  client = await connectHttp(server.url, a.key);
}, 120_000);

afterAll(async () => {
  await client?.close();
  server?.proc.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

const names = async (filter?: Record<string, unknown>) => {
  const args = {
    query: "parental leave",
    mode: "keyword",
    topK: 10,
    ...(filter ? { filter: { metadata: filter } } : {}),
  };
  const r = jsonOf(await client.callTool({ name: "search", arguments: args }));
  return (r.results as { sourceName: string }[]).map((x) => x.sourceName).sort();
};

describe("search with filter.metadata", () => {
  test("returns only chunks of sources whose metadata match", async () => {
    expect(await names()).toEqual(["Eng notes", "HR policy", "Legal memo"]);
    expect(await names({ team: "hr" })).toEqual(["HR policy"]);
    expect(await names({ year: { $gte: 2024 } })).toEqual(["Eng notes", "HR policy"]);
    expect(await names({ tags: { $in: ["contract", "leave"] } })).toEqual(["HR policy", "Legal memo"]);
    expect(await names({ $or: [{ draft: true }, { team: "legal" }] })).toEqual(["Eng notes", "Legal memo"]);
    expect(await names({ sourceType: "url" })).toEqual([]);
  });

  const bad: [string, unknown, string][] = [
    [
      "an array for $gt",
      { year: { $gt: [1] } },
      "filter.metadata.year.$gt: compares with a number or a string, not an array",
    ],
    [
      "an unknown operator",
      { team: { $like: "h%" } },
      "filter.metadata.team.$like: unknown operator $like; expected one of $eq $ne $in $nin $gt $gte $lt $lte $exists",
    ],
    ["a reserved key", { sourceId: "x" }, "filter.metadata.sourceId: filter by source with filter.sourceIds"],
    [
      "a value of 2,001 characters",
      { team: "h".repeat(2001) },
      "filter.metadata.team: must be at most 2000 characters",
    ],
    ["an array", [], "filter.metadata: must be an object of metadata keys and conditions, not an array"],
    ["a string", "team=hr", "filter.metadata: must be an object of metadata keys and conditions, not a string"],
  ];
  test.each(bad)("%s is a tool error with the query endpoint's sentence", async (_what, metadata, sentence) => {
    const r = await client.callTool({ name: "search", arguments: { query: "leave", filter: { metadata } } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(sentence);
    expect(r.structuredContent).toEqual({ error: { code: "invalid_request", message: sentence } });
    const http = await server.http("/api/rag/query", {
      method: "POST",
      headers: { authorization: `Bearer ${a.key}` },
      json: { query: "leave", filter: { metadata } },
    });
    expect(http.status).toBe(400);
    expect(http.body.error.message).toBe(sentence);
  });
});

describe("the pipeline's metadata keys", () => {
  const searchDescription = async (c: Client) =>
    (await c.listTools()).tools.find((t) => t.name === "search")!.description!;

  test("search's description names this pipeline's keys, types and values, and no other pipeline's", async () => {
    const mine = await searchDescription(client);
    expect(mine).toContain('- team: string, 3 sources; values "eng", "hr", "legal"');
    expect(mine).toContain("- year: number, 3 sources, 2022 to 2025");
    expect(mine).toContain('- tags: string[], 2 sources; values "contract", "leave", "policy"');
    expect(mine).toContain("- draft: boolean, 1 source");
    expect(mine).not.toContain("vaultCode");
    const other = await connectHttp(server.url, b.key);
    try {
      const theirs = await searchDescription(other);
      expect(theirs).toContain('- vaultCode: string, 1 source; values "red"');
      expect(theirs).not.toContain("team");
    } finally {
      await other.close();
    }
  });

  test("list_metadata gives the keys with types, counts and the most common values", async () => {
    const r = jsonOf(await client.callTool({ name: "list_metadata", arguments: {} }));
    expect(r.totalKeys).toBe(4);
    const byKey: Record<string, any> = Object.fromEntries((r.keys as { key: string }[]).map((k) => [k.key, k]));
    expect(byKey.team).toEqual({
      key: "team",
      types: ["string"],
      sources: 3,
      distinctValues: 3,
      values: [
        { value: "eng", sources: 1 },
        { value: "hr", sources: 1 },
        { value: "legal", sources: 1 },
      ],
    });
    expect(byKey.year).toEqual({ key: "year", types: ["number"], sources: 3, min: 2022, max: 2025 });
    expect(byKey.tags.values).toEqual([
      { value: "contract", sources: 1 },
      { value: "leave", sources: 1 },
      { value: "policy", sources: 1 },
    ]);
    expect(byKey.draft).toEqual({ key: "draft", types: ["boolean"], sources: 1 });
  });

  test("a metadata change shows in the description of the next tool list", async () => {
    const id = a.sources["Legal memo"]!;
    const patched = await server.http(`/api/rag/pipelines/${a.pipelineId}/sources/${id}`, {
      method: "PATCH",
      json: { metadata: { team: "hr", region: "emea" } },
      jar: a.jar,
    });
    expect(patched.status).toBe(200);
    const seen = await waitFor("the new key in the description", async () => {
      const d = await searchDescription(client);
      return d.includes('- region: string, 1 source; values "emea"') ? d : null;
    });
    expect(seen).toContain('- team: string, 3 sources; values "hr", "eng"');
    const r = jsonOf(await client.callTool({ name: "list_metadata", arguments: {} }));
    expect((r.keys as { key: string }[]).map((k) => k.key)).toContain("region");
  });
});
