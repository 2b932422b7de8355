/**
 * Access rules for applications' end users (docs/API.md, Access rules): a key's filter,
 * tenant tokens minted with a real JWT library as a client would, and the `_access` rule.
 * A token for group A never returns a chunk of group B in any mode, through
 * /api/rag/query and /mcp; expired, forged and revoked-key tokens are 401; a token cannot
 * write.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import jwt from "jsonwebtoken";
import { makeApp, type TestApp } from "./support/app";
import { Client } from "./support/ingest";
import { connectHttp, jsonOf, textOf } from "./support/mcp";

const MODES = ["keyword", "vector", "hybrid"] as const;
const SOURCES = [
  {
    name: "a-salary",
    access: ["group:a"],
    team: "hr",
    text: "Salary bands for group A: the quarterly salary review is in March.",
  },
  {
    name: "b-salary",
    access: ["group:b"],
    team: "hr",
    text: "Salary bands for group B: the quarterly salary review is in June.",
  },
  {
    name: "b-user",
    access: ["user:42"],
    team: "eng",
    text: "Salary note for user 42 only: the salary review moved to July.",
  },
  { name: "open", access: null, team: "eng", text: "Everyone: the salary review calendar is on the intranet." },
];

let t: TestApp;
let c: Client;
let pipeline: string;
let server: ReturnType<typeof Bun.serve>;
const ids = new Map<string, string>();

beforeAll(async () => {
  t = await makeApp({ workers: 1, queryRate: 100_000, queryBurst: 100_000 });
  c = await Client.create(t);
  pipeline = await c.pipeline({ name: "tenants", embeddingModel: "builtin" });
  for (const s of SOURCES) {
    const metadata = { team: s.team, ...(s.access ? { _access: s.access } : {}) };
    const r = await c.call("POST", `/api/rag/pipelines/${pipeline}/sources`, {
      type: "text",
      name: s.name,
      content: s.text,
      metadata,
    });
    expect(r.status).toBe(201);
    ids.set(s.name, r.body.id);
  }
  await c.allSettled(pipeline);
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => t.handle(req) });
}, 60_000);

afterAll(async () => {
  server?.stop(true);
  await t?.close();
});

async function createKey(body: Record<string, unknown>) {
  return c.call("POST", `/api/rag/pipelines/${pipeline}/keys`, { name: "k", ...body });
}

/** A key with the tokens scope: its id and token secret. */
async function tokenKey(extra: Record<string, unknown> = {}) {
  const r = await createKey({ scopes: ["query", "tokens"], ...extra });
  expect(r.status).toBe(201);
  expect(typeof r.body.tokenSecret).toBe("string");
  return { id: r.body.id as string, key: r.body.key as string, secret: r.body.tokenSecret as string };
}

const mint = (k: { id: string; secret: string }, claims: Record<string, unknown>, expiresIn = 60) =>
  jwt.sign({ key: k.id, ...claims }, k.secret, { algorithm: "HS256", expiresIn });

async function names(bearer: string, body: Record<string, unknown>) {
  const r = await c.query(bearer, { topK: 10, ...body });
  expect(r.status).toBe(200);
  return (r.body.results as { metadata: { sourceName: string } }[]).map((h) => h.metadata.sourceName).sort();
}

describe("a tenant token", () => {
  let k: { id: string; key: string; secret: string };
  beforeAll(async () => {
    k = await tokenKey();
  });

  test.each(MODES)("for group A sees A's and open chunks, never B's (%s)", async (mode) => {
    const token = mint(k, { principals: ["group:a"] });
    expect(await names(token, { query: "salary review group B June", mode })).toEqual(["a-salary", "open"]);
    // The caller's own filter narrows; it cannot widen.
    const wide = { $or: [{ team: "hr" }, { team: "eng" }] };
    expect(await names(token, { query: "salary", mode, filter: { metadata: wide } })).toEqual(["a-salary", "open"]);
    expect(await names(token, { query: "salary", mode, filter: { sourceIds: [ids.get("b-salary")] } })).toEqual([]);
  });

  test("without principals sees only sources with no _access; its filter narrows further", async () => {
    expect(await names(mint(k, {}), { query: "salary review" })).toEqual(["open"]);
    const both = mint(k, { principals: ["group:b", "user:42"], filter: { team: "hr" } });
    expect(await names(both, { query: "salary review" })).toEqual(["b-salary"]);
  });

  test("is 401 once expired, forged, far ahead, of a revoked key, or naming a key without the tokens scope", async () => {
    const expired = jwt.sign(
      { key: k.id, principals: ["group:a"], exp: Math.floor(Date.now() / 1000) - 10 },
      k.secret,
      { algorithm: "HS256" },
    );
    const forged = mint({ id: k.id, secret: "not-the-secret-of-this-key-at-all" }, { principals: ["group:b"] });
    const noExp = jwt.sign({ key: k.id, principals: ["group:a"] }, k.secret, { algorithm: "HS256" });
    const plain = await createKey({});
    const wrongKey = mint({ id: plain.body.id, secret: k.secret }, {});
    const now = Math.floor(Date.now() / 1000);
    const sign = (exp: number) => jwt.sign({ key: k.id, exp }, k.secret, { algorithm: "HS256" });
    const [distant, fractional] = [sign(now + 86_400 + 600), sign(now + 60.5)];
    for (const bad of [expired, forged, noExp, wrongKey, distant, fractional]) {
      const r = await c.query(bad, { query: "salary" });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("invalid_api_key");
    }
    // A day ahead, as minted by an issuer whose clock runs half a minute ahead, is within the leeway.
    expect((await c.query(sign(now + 86_400 + 30), { query: "salary" })).status).toBe(200);
    const other = await tokenKey();
    const token = mint(other, { principals: ["group:a"] });
    expect((await c.query(token, { query: "salary" })).status).toBe(200);
    expect((await c.call("DELETE", `/api/rag/pipelines/${pipeline}/keys/${other.id}`)).status).toBe(200);
    expect((await c.query(token, { query: "salary" })).status).toBe(401);
  });

  test("cannot write through the documents API", async () => {
    const token = mint(k, { principals: ["group:a"] });
    const r = await t.call("PUT", "/api/rag/documents/x1", {
      headers: { authorization: `Bearer ${token}` },
      body: { content: "written by a token" },
    });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("insufficient_scope");
  });

  test("over MCP: search, read and list_sources show only what it may see", async () => {
    const client = await connectHttp(`http://127.0.0.1:${server.port}`, mint(k, { principals: ["group:a"] }));
    try {
      const tools = (await client.listTools()).tools.map((x) => x.name);
      expect(tools).not.toContain("list_metadata");
      for (const mode of MODES) {
        const r = jsonOf(await client.callTool({ name: "search", arguments: { query: "salary group B June", mode } }));
        expect(r.results.map((h: { sourceName: string }) => h.sourceName).sort()).toEqual(["a-salary", "open"]);
      }
      const listed = jsonOf(await client.callTool({ name: "list_sources", arguments: {} }));
      expect(listed.sources.map((s: { name: string }) => s.name).sort()).toEqual(["a-salary", "open"]);
      const read = await client.callTool({ name: "read", arguments: { sourceId: ids.get("b-salary") } });
      expect(read.isError).toBe(true);
      expect(textOf(read)).not.toContain("June");
      expect(
        jsonOf(await client.callTool({ name: "read", arguments: { sourceId: ids.get("a-salary") } })).text,
      ).toContain("March");
    } finally {
      await client.close();
    }
  });
});

describe("a key with a filter", () => {
  test("holds every query to it, and shows it in the key list", async () => {
    const r = await createKey({ filter: { team: "eng" } });
    expect(r.status).toBe(201);
    expect(r.body.filter).toEqual({ team: "eng" });
    for (const mode of MODES)
      expect(await names(r.body.key, { query: "salary review", mode })).toEqual(["b-user", "open"]);
    expect(await names(r.body.key, { query: "salary", filter: { metadata: { team: "hr" } } })).toEqual([]);
    const listed = await c.call("GET", `/api/rag/pipelines/${pipeline}/keys`);
    expect(listed.body.find((x: { id: string }) => x.id === r.body.id).filter).toEqual({ team: "eng" });
  });

  test("is refused with the ingest scope, a bad filter, or tokens alone", async () => {
    for (const body of [
      { filter: { team: "eng" }, scopes: ["query", "ingest"] },
      { filter: { team: { $near: 1 } } },
      { scopes: ["tokens"] },
    ]) {
      const r = await createKey(body);
      expect(r.status).toBe(400);
    }
  });
});

test("_access must list who may see a source", async () => {
  const r = await c.call("POST", `/api/rag/pipelines/${pipeline}/sources`, {
    type: "text",
    content: "x",
    metadata: { _access: "group:a" },
  });
  expect(r.status).toBe(400);
  expect(JSON.stringify(r.body.error)).toContain("_access");
});
