import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";

let t: TestApp;
let cookie: string;
let pipelineId: string;
beforeAll(async () => {
  t = await makeApp({ queryRate: 5, queryBurst: 5 });
  cookie = await t.signup();
  pipelineId = (await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "P", retrievalTopK: 7 } })).body.id;
});
afterAll(() => t.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const newKey = async (name = "app") =>
  (await t.call("POST", `/api/rag/pipelines/${pipelineId}/keys`, { cookie, body: { name } })).body;

describe("API key lifecycle", () => {
  test("the full key appears once; lists show the prefix only; only a hash is stored", async () => {
    const created = await t.call("POST", `/api/rag/pipelines/${pipelineId}/keys`, {
      cookie,
      body: { name: "backend" },
    });
    expect(created.status).toBe(201);
    const { key, prefix, id } = created.body;
    expect(key).toMatch(/^rag_[0-9A-Za-z]{40,}$/);
    expect(prefix).toBe(key.slice(0, 12));
    expect(created.body).toMatchObject({ name: "backend", lastUsedAt: null });

    const list = await t.call("GET", `/api/rag/pipelines/${pipelineId}/keys`, { cookie });
    expect(list.status).toBe(200);
    const listed = list.body.find((k: { id: string }) => k.id === id);
    expect(Object.keys(listed).sort()).toEqual([
      "createdAt",
      "expiresAt",
      "filter",
      "id",
      "lastUsedAt",
      "name",
      "prefix",
      "scopes",
    ]);
    expect(list.text).not.toContain(key);

    const stored = t.services.db.reader.$client.query("SELECT * FROM api_keys WHERE id = ?").get(id) as Record<
      string,
      string
    >;
    expect(JSON.stringify(stored)).not.toContain(key);
    expect(stored.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  test("keys are distinct", async () => {
    const keys = await Promise.all([newKey(), newKey(), newKey()]);
    expect(new Set(keys.map((k) => k.key)).size).toBe(3);
  });

  test("key names are validated", async () => {
    for (const body of [{}, { name: "" }, { name: 3 }, { name: "x".repeat(201) }]) {
      const r = await t.call("POST", `/api/rag/pipelines/${pipelineId}/keys`, { cookie, body });
      expect(r.status).toBe(400);
    }
  });

  test("a query with the key answers; after revocation the very next query is 401", async () => {
    const k = await newKey("to-revoke");
    const ok = await t.call("POST", "/api/rag/query", { headers: bearer(k.key), body: { query: "hello", topK: 3 } });
    expect(ok.status).toBe(200);
    const del = await t.call("DELETE", `/api/rag/pipelines/${pipelineId}/keys/${k.id}`, { cookie });
    expect(del.body).toEqual({ deleted: true, id: k.id });
    const after = await t.call("POST", "/api/rag/query", { headers: bearer(k.key), body: { query: "hello" } });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("invalid_api_key");
    expect((await t.call("DELETE", `/api/rag/pipelines/${pipelineId}/keys/${k.id}`, { cookie })).status).toBe(404);
  });

  test("lastUsedAt shows use at once and reaches the database on flush", async () => {
    const k = await newKey("used");
    await t.call("POST", "/api/rag/query", { headers: bearer(k.key), body: { query: "hi" } });
    const listed = (await t.call("GET", `/api/rag/pipelines/${pipelineId}/keys`, { cookie })).body.find(
      (x: { id: string }) => x.id === k.id,
    );
    expect(listed.lastUsedAt).not.toBeNull();
    const before = t.services.db.reader.$client.query("SELECT last_used_at FROM api_keys WHERE id = ?").get(k.id) as {
      last_used_at: string | null;
    };
    expect(before.last_used_at).toBeNull();
    await t.services.keys.flush();
    const after = t.services.db.reader.$client.query("SELECT last_used_at FROM api_keys WHERE id = ?").get(k.id) as {
      last_used_at: string | null;
    };
    expect(after.last_used_at).toBe(listed.lastUsedAt);
  });
});

describe("query", () => {
  test("an empty pipeline answers [] and echoes pipelineId, query and topK (default: retrievalTopK)", async () => {
    const k = await newKey();
    const r = await t.call("POST", "/api/rag/query", { headers: bearer(k.key), body: { query: "  what is ragd?  " } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      results: [],
      pipelineId,
      query: "what is ragd?",
      topK: 7,
      noRelevantResults: true,
      queryLanguage: "en",
    });
    const r3 = await t.call("POST", "/api/rag/query", { headers: bearer(k.key), body: { query: "x", topK: 3 } });
    expect(r3.body.topK).toBe(3);
  });

  const badBodies: [string, unknown][] = [
    ["no query", { topK: 3 }],
    ["empty query", { query: "" }],
    ["blank query", { query: "   " }],
    ["query of 8001 characters", { query: "q".repeat(8001) }],
    ["numeric query", { query: 5 }],
    ["topK 0", { query: "x", topK: 0 }],
    ["topK 101", { query: "x", topK: 101 }],
    ["topK 2.5", { query: "x", topK: 2.5 }],
    ["topK as a string", { query: "x", topK: "3" }],
    ["unknown mode", { query: "x", mode: "semantic" }],
    ["minScore 1.5", { query: "x", minScore: 1.5 }],
    ["sourceIds not an array", { query: "x", filter: { sourceIds: "a" } }],
  ];
  test.each(badBodies)("rejects %s with 400", async (_n, body) => {
    const k = await newKey();
    const r = await t.call("POST", "/api/rag/query", { headers: bearer(k.key), body });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_request");
  });

  test("accepts topK 1 and 100 and a query of 8000 characters", async () => {
    const k = await newKey();
    for (const body of [{ query: "x", topK: 1 }, { query: "x", topK: 100 }, { query: "q".repeat(8000) }]) {
      expect((await t.call("POST", "/api/rag/query", { headers: bearer(k.key), body })).status).toBe(200);
    }
  });

  const badAuth: [string, Record<string, string>][] = [
    ["no header", {}],
    ["not bearer", { authorization: "Basic abc" }],
    ["malformed key", { authorization: "Bearer rag_short" }],
    ["unknown key", { authorization: `Bearer rag_${"A".repeat(40)}` }],
    ["session cookie instead of a key", {}],
  ];
  test.each(badAuth)("401 invalid_api_key for %s, checked before the body", async (name, headers) => {
    const r = await t.call("POST", "/api/rag/query", {
      headers,
      cookie: name.startsWith("session") ? cookie : undefined,
      body: { topK: "junk" },
    });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe("invalid_api_key");
  });

  test("rate limit per key: 429 with Retry-After past the burst; other keys unaffected", async () => {
    const a = await newKey();
    const b = await newKey();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++)
      statuses.push((await t.call("POST", "/api/rag/query", { headers: bearer(a.key), body: { query: "x" } })).status);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses).toContain(429);
    const limited = await t.call("POST", "/api/rag/query", { headers: bearer(a.key), body: { query: "x" } });
    expect(limited.body.error.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await t.call("POST", "/api/rag/query", { headers: bearer(b.key), body: { query: "x" } })).status).toBe(200);
  });
});

describe("query length is counted after trimming", () => {
  test("8000 characters padded with spaces pass; 8001 do not", async () => {
    const k = await newKey();
    const padded = `   ${"q".repeat(8000)}   `;
    expect((await t.call("POST", "/api/rag/query", { headers: bearer(k.key), body: { query: padded } })).status).toBe(
      200,
    );
    const over = await t.call("POST", "/api/rag/query", {
      headers: bearer(k.key),
      body: { query: ` ${"q".repeat(8001)} ` },
    });
    expect(over.status).toBe(400);
    expect(over.body.error.details[0].field).toBe("query");
  });
});

describe("unknown fields in a search body are 400, never ignored", () => {
  let kbId: string;
  beforeAll(async () => {
    kbId = (await t.call("POST", "/api/kb", { cookie, body: { name: "Strict" } })).body.id;
  });

  /** Sends the body to the query endpoint (with a fresh key) or to knowledge-base search. */
  const send = async (door: "query" | "kb", body: unknown) =>
    door === "query"
      ? t.call("POST", "/api/rag/query", { headers: bearer((await newKey()).key), body })
      : t.call("POST", `/api/kb/${kbId}/search`, { cookie, body });

  const DOORS = ["query", "kb"] as const;
  // [case, body, the fields named in details]
  const unknown: [string, unknown, string[]][] = [
    ["meta for metadata", { query: "x", filter: { meta: { lang: "en" } } }, ["filter.meta"]],
    ["metadata at the top", { query: "x", metadata: {} }, ["metadata"]],
    ["a misspelt filter key", { query: "x", filter: { sourceID: ["a"] } }, ["filter.sourceID"]],
    ["top_k for topK", { query: "x", top_k: 3 }, ["top_k"]],
    ["min_score for minScore", { query: "x", min_score: 0.9 }, ["min_score"]],
    ["two unknown fields", { query: "x", k: 3, filters: {} }, ["k", "filters"]],
    [
      "a field named like an Object method",
      { query: "x", constructor: 1, filter: { toString: 1 } },
      ["constructor", "filter.toString"],
    ],
  ];
  const cases = DOORS.flatMap((door) => unknown.map(([name, body, fields]) => [door, name, body, fields] as const));
  test.each(cases)("%s: %s", async (door, _name, body, fields) => {
    const r = await send(door, body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_request");
    expect(r.body.error.message).toStartWith(`${fields[0]}: unknown field`);
    expect(r.body.error.details.map((d: { field: string }) => d.field)).toEqual(fields);
  });

  test.each(DOORS)("%s: every known field, filter included, is still accepted", async (door) => {
    const filter = { sourceIds: [], metadata: { lang: "en" } };
    const r = await send(door, { query: "x", topK: 2, mode: "keyword", minScore: 0.1, filter });
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([]);
  });

  test("credentials are checked before the body's fields", async () => {
    const body = { query: "x", filter: { metadata: {} } };
    const noKey = await t.call("POST", "/api/rag/query", { headers: bearer(`rag_${"A".repeat(40)}`), body });
    expect([noKey.status, noKey.body.error.code]).toEqual([401, "invalid_api_key"]);
    const noSession = await t.call("POST", `/api/kb/${kbId}/search`, { body });
    expect([noSession.status, noSession.body.error.code]).toEqual([401, "unauthenticated"]);
  });
});
