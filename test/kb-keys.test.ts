/**
 * Knowledge-base keys (docs/API.md, Knowledge bases: keys): an application or agent searches
 * a knowledge base with a key of it, through POST /api/kb/{id}/search and /mcp, or with a
 * tenant token of such a key; the key reaches no pipeline and no other knowledge base, and
 * cannot ingest.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import jwt from "jsonwebtoken";
import { makeApp, type TestApp } from "./support/app";
import { Client } from "./support/ingest";
import { connectHttp, jsonOf } from "./support/mcp";
import { waitFor } from "./support/wait";

let t: TestApp;
let c: Client;
let kb: string;
let otherKb: string;
let pipeline: string;
let server: ReturnType<typeof Bun.serve>;

const DOCS = [
  { name: "espresso.md", text: "The espresso machine is descaled every Friday by facilities.", access: null },
  {
    name: "payroll.md",
    text: "Payroll for group B closes on the twentieth; the espresso fund too.",
    access: ["group:b"],
  },
];

/** Uploads a text file to a knowledge base as the owner. */
async function upload(kbId: string, name: string, text: string, metadata?: unknown) {
  const form = new FormData();
  form.append("file", new File([text], name, { type: "text/markdown" }));
  if (metadata) form.append("metadata", JSON.stringify(metadata));
  const res = await t.handle(
    new Request(`http://localhost/api/kb/${kbId}/upload`, {
      method: "POST",
      body: form,
      headers: { cookie: c.cookie },
    }),
  );
  expect(res.status).toBe(202);
}

const search = (kbId: string, bearer: string, body: Record<string, unknown>) =>
  t.call("POST", `/api/kb/${kbId}/search`, { headers: { authorization: `Bearer ${bearer}` }, body });

const createKey = (kbId: string, body: Record<string, unknown>) =>
  c.call("POST", `/api/kb/${kbId}/keys`, { name: "app", ...body });

beforeAll(async () => {
  t = await makeApp({ workers: 1, queryRate: 100_000, queryBurst: 100_000 });
  c = await Client.create(t);
  kb = (await c.call("POST", "/api/kb", { name: "Handbook" })).body.id;
  otherKb = (await c.call("POST", "/api/kb", { name: "Other" })).body.id;
  pipeline = await c.pipeline({ name: "p", embeddingModel: "builtin" });
  for (const d of DOCS) await upload(kb, d.name, d.text, d.access ? { _access: d.access } : undefined);
  await upload(otherKb, "other.md", "The espresso machine in the other office is never descaled.");
  for (const id of [kb, otherKb])
    await waitFor("the knowledge base to be ready", async () => {
      const docs = (await c.call("GET", `/api/kb/${id}`)).body.documents as { status: string }[];
      return docs.length > 0 && docs.every((d) => d.status === "ready");
    });
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => t.handle(req) });
}, 60_000);

afterAll(async () => {
  server?.stop(true);
  await t?.close();
});

describe("a knowledge base's key", () => {
  let key: string;
  beforeAll(async () => {
    const r = await createKey(kb, {});
    expect(r.status).toBe(201);
    expect(r.body.scopes).toEqual(["query"]);
    key = r.body.key;
  });

  test("searches its knowledge base in every mode", async () => {
    for (const mode of ["keyword", "vector", "hybrid"]) {
      const r = await search(kb, key, { query: "when is the espresso machine descaled", mode, topK: 5 });
      expect(r.status).toBe(200);
      expect(r.body.kbId).toBe(kb);
      const names = r.body.results.map((h: { metadata: { sourceName: string } }) => h.metadata.sourceName);
      expect(names).toContain("espresso.md");
      expect(names).not.toContain("other.md");
    }
  });

  test("is listed by prefix and stops at once when revoked", async () => {
    const r = await createKey(kb, { name: "short-lived" });
    const listed = await c.call("GET", `/api/kb/${kb}/keys`);
    expect(listed.status).toBe(200);
    expect(listed.body.map((k: { id: string }) => k.id)).toContain(r.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(r.body.key);
    expect((await search(kb, r.body.key, { query: "espresso" })).status).toBe(200);
    expect((await c.call("DELETE", `/api/kb/${kb}/keys/${r.body.id}`)).status).toBe(200);
    const after = await search(kb, r.body.key, { query: "espresso" });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("invalid_api_key");
  });

  test("reaches no pipeline, no other knowledge base, and cannot ingest", async () => {
    const q = await c.query(key, { query: "espresso" });
    expect(q.status).toBe(403);
    expect(q.body.error.code).toBe("forbidden");
    expect(q.body.error.message).toContain("/api/kb/");
    const other = await search(otherKb, key, { query: "espresso" });
    expect(other.status).toBe(403);
    expect(JSON.stringify(other.body)).not.toContain("other office");
    const put = await t.call("PUT", "/api/rag/documents/x1", {
      headers: { authorization: `Bearer ${key}` },
      body: { content: "written by a knowledge base's key" },
    });
    expect(put.status).toBe(403);
    expect(put.body.error.code).toBe("insufficient_scope");
    const ingest = await createKey(kb, { scopes: ["query", "ingest"] });
    expect(ingest.status).toBe(400);
    expect(ingest.body.error.details[0].field).toBe("scopes");
  });

  test("a pipeline's key cannot search a knowledge base", async () => {
    const p = await c.call("POST", `/api/rag/pipelines/${pipeline}/keys`, { name: "p" });
    const r = await search(kb, p.body.key, { query: "espresso" });
    expect(r.status).toBe(403);
    expect(r.body.error.message).toContain("/api/rag/query");
  });

  test("a bad key is 401 before the body is looked at; the owner's session still searches", async () => {
    const bad = await search(kb, `rag_${"x".repeat(40)}`, { query: "espresso", nonsense: 1 });
    expect(bad.status).toBe(401);
    const owner = await c.call("POST", `/api/kb/${kb}/search`, { query: "espresso" });
    expect(owner.status).toBe(200);
    expect(owner.body.results.length).toBeGreaterThan(0);
    const none = await t.call("POST", `/api/kb/${kb}/search`, { body: { query: "espresso" } });
    expect(none.status).toBe(401);
  });

  test("over MCP, the search tool searches the knowledge base", async () => {
    const client = await connectHttp(`http://127.0.0.1:${server.port}`, key);
    try {
      const r = jsonOf(await client.callTool({ name: "search", arguments: { query: "espresso descaled" } }));
      const names = r.results.map((h: { sourceName: string }) => h.sourceName);
      expect(names).toContain("espresso.md");
      expect(names).not.toContain("other.md");
      expect(r.results[0].sourcePage).toMatch(new RegExp(`^http://[^/]+/#/kb/${kb}$`));
    } finally {
      await client.close();
    }
  });
});

test("a tenant token of a knowledge base's key sees only what its principals may", async () => {
  const r = await createKey(kb, { scopes: ["query", "tokens"] });
  expect(r.status).toBe(201);
  const mint = (principals: string[]) =>
    jwt.sign({ key: r.body.id, principals }, r.body.tokenSecret, { algorithm: "HS256", expiresIn: 60 });
  const names = async (token: string) => {
    const s = await search(kb, token, { query: "espresso payroll", topK: 10 });
    expect(s.status).toBe(200);
    return s.body.results.map((h: { metadata: { sourceName: string } }) => h.metadata.sourceName).sort();
  };
  expect(await names(mint([]))).toEqual(["espresso.md"]);
  expect(await names(mint(["group:b"]))).toEqual(["espresso.md", "payroll.md"]);
});

describe("a knowledge base's tenant token", () => {
  // Every source matches the query; the key's filter keeps team a, the token's filter year 2026.
  const SOURCES = [
    { name: "a-mine.md", metadata: { team: "a", year: 2026, _access: ["group:a"] } },
    { name: "a-theirs.md", metadata: { team: "a", year: 2026, _access: ["group:b"] } },
    { name: "a-old.md", metadata: { team: "a", year: 2025, _access: ["group:a"] } },
    { name: "b-mine.md", metadata: { team: "b", year: 2026, _access: ["group:a"] } },
    { name: "a-open.md", metadata: { team: "a", year: 2026 } },
  ];
  let tenants: string;
  let k: { id: string; secret: string };
  const mint = (claims: Record<string, unknown>, secret = k.secret) =>
    jwt.sign({ key: k.id, ...claims }, secret, { algorithm: "HS256", expiresIn: 60 });
  const names = async (token: string, body: Record<string, unknown>) => {
    const r = await search(tenants, token, { query: "quarterly budget review", topK: 10, ...body });
    expect(r.status).toBe(200);
    return r.body.results.map((h: { metadata: { sourceName: string } }) => h.metadata.sourceName).sort();
  };

  beforeAll(async () => {
    tenants = (await c.call("POST", "/api/kb", { name: "Tenants" })).body.id;
    for (const s of SOURCES) await upload(tenants, s.name, `The quarterly budget review of ${s.name}.`, s.metadata);
    await waitFor("the knowledge base to be ready", async () => {
      const docs = (await c.call("GET", `/api/kb/${tenants}`)).body.documents as { status: string }[];
      return docs.length === SOURCES.length && docs.every((d) => d.status === "ready");
    });
    const r = await createKey(tenants, { scopes: ["query", "tokens"], filter: { team: "a" } });
    expect(r.status).toBe(201);
    k = { id: r.body.id, secret: r.body.tokenSecret };
  }, 60_000);

  test.each(["keyword", "vector", "hybrid"])("is held to the key's filter, its own and _access (%s)", async (mode) => {
    const token = mint({ principals: ["group:a"], filter: { year: 2026 } });
    expect(await names(token, { mode })).toEqual(["a-mine.md", "a-open.md"]);
    // The caller's filter narrows; it cannot widen.
    const wide = { $or: [{ team: "a" }, { team: "b" }] };
    expect(await names(token, { mode, filter: { metadata: wide } })).toEqual(["a-mine.md", "a-open.md"]);
    expect(await names(token, { mode, filter: { metadata: { team: "b" } } })).toEqual([]);
    expect(await names(mint({}), { mode })).toEqual(["a-open.md"]);
  });

  test("over MCP, search sees only what the token may", async () => {
    const client = await connectHttp(`http://127.0.0.1:${server.port}`, mint({ principals: ["group:a"] }));
    try {
      const tools = (await client.listTools()).tools.map((x) => x.name);
      expect(tools).not.toContain("list_metadata");
      const r = jsonOf(await client.callTool({ name: "search", arguments: { query: "quarterly budget review" } }));
      const found = r.results.map((h: { sourceName: string }) => h.sourceName).sort();
      expect(found).toEqual(["a-mine.md", "a-old.md", "a-open.md"]);
    } finally {
      await client.close();
    }
  });

  test("never writes", async () => {
    const token = mint({ principals: ["group:a"] });
    const put = await t.call("PUT", "/api/rag/documents/x1", {
      headers: { authorization: `Bearer ${token}` },
      body: { content: "written by a token" },
    });
    expect(put.status).toBe(403);
    expect(put.body.error.code).toBe("insufficient_scope");
    const form = new FormData();
    form.append("file", new File(["written by a token"], "token.md", { type: "text/markdown" }));
    const headers = { authorization: `Bearer ${token}` };
    const up = await t.handle(
      new Request(`http://localhost/api/kb/${tenants}/upload`, { method: "POST", body: form, headers }),
    );
    expect(up.status).toBe(401);
    const docs = (await c.call("GET", `/api/kb/${tenants}`)).body.documents as { name: string }[];
    expect(docs.map((d) => d.name)).not.toContain("token.md");
  });

  test("is 401 once expired, forged, or of a revoked key", async () => {
    const expired = jwt.sign({ key: k.id, exp: Math.floor(Date.now() / 1000) - 10 }, k.secret, { algorithm: "HS256" });
    const forged = mint({ principals: ["group:b"] }, "not-the-secret-of-this-key-at-all");
    for (const bad of [expired, forged]) {
      const r = await search(tenants, bad, { query: "budget" });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("invalid_api_key");
    }
    const token = mint({ principals: ["group:a"] });
    expect((await search(tenants, token, { query: "budget" })).status).toBe(200);
    expect((await c.call("DELETE", `/api/kb/${tenants}/keys/${k.id}`)).status).toBe(200);
    const revoked = await search(tenants, token, { query: "budget" });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe("invalid_api_key");
  });
});
