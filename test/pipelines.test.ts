import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { updateUserTier } from "../src/db/repo/users";
import { email, makeApp, type TestApp } from "./support/app";

let t: TestApp;
beforeAll(async () => {
  t = await makeApp();
});
afterAll(() => t.close());

/** A signed-up user on the given tier. */
async function userOn(tier: "free" | "pro" | "unlimited") {
  const e = email(tier);
  const cookie = await t.signup(e);
  await t.services.db.atomically((tx) => updateUserTier(tx, e, tier));
  return cookie;
}

describe("create", () => {
  test("applies the contract's defaults", async () => {
    const cookie = await userOn("pro");
    const r = await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "Docs" } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      name: "Docs",
      description: "",
      chunkingStrategy: "recursive",
      chunkSize: 1000,
      chunkOverlap: 200,
      embeddingModel: "builtin-glove",
      embeddingDimensions: null,
      vectorProvider: "lancedb",
      retrievalTopK: 5,
      status: "empty",
      sourceCount: 0,
      chunkCount: 0,
    });
    expect(r.body.createdAt).toBe(r.body.updatedAt);
  });

  test("keeps every given field", async () => {
    const cookie = await userOn("pro");
    const body = {
      name: "Full",
      description: "all fields",
      chunkingStrategy: "token",
      chunkSize: 256,
      chunkOverlap: 32,
      embeddingModel: "ollama/nomic-embed-text",
      vectorProvider: "lancedb",
      retrievalTopK: 12,
    };
    const r = await t.call("POST", "/api/rag/pipelines", { cookie, body });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject(body);
  });

  const valid = { name: "ok" };
  const cases: [string, Record<string, unknown>, string][] = [
    ["missing name", { description: "x" }, "name"],
    ["empty name", { name: "" }, "name"],
    ["name of 201 chars", { name: "n".repeat(201) }, "name"],
    ["numeric name", { name: 42 }, "name"],
    ["description not a string", { ...valid, description: 5 }, "description"],
    ["unknown chunking strategy", { ...valid, chunkingStrategy: "semantic" }, "chunkingStrategy"],
    ["chunkSize 49", { ...valid, chunkSize: 49 }, "chunkSize"],
    ["chunkSize 20001", { ...valid, chunkSize: 20001 }, "chunkSize"],
    ["chunkSize not an integer", { ...valid, chunkSize: 100.5 }, "chunkSize"],
    ["chunkSize as a string", { ...valid, chunkSize: "500" }, "chunkSize"],
    ["negative overlap", { ...valid, chunkOverlap: -1 }, "chunkOverlap"],
    ["overlap equal to size", { ...valid, chunkSize: 100, chunkOverlap: 100 }, "chunkOverlap"],
    ["overlap above size", { ...valid, chunkSize: 100, chunkOverlap: 150 }, "chunkOverlap"],
    ["unknown embedding model form", { ...valid, embeddingModel: "hf://bert base" }, "embeddingModel"],
    ["openai model without a server", { ...valid, embeddingModel: "openai/text-embedding-3-small" }, "embeddingModel"],
    ["empty embedding model", { ...valid, embeddingModel: "" }, "embeddingModel"],
    ["unknown vector provider", { ...valid, vectorProvider: "pinecone" }, "vectorProvider"],
    ["topK 0", { ...valid, retrievalTopK: 0 }, "retrievalTopK"],
    ["topK 101", { ...valid, retrievalTopK: 101 }, "retrievalTopK"],
    ["topK as a string", { ...valid, retrievalTopK: "5" }, "retrievalTopK"],
  ];
  test.each(cases)("rejects %s (400, names the field)", async (_n, body, field) => {
    const cookie = await userOn("unlimited");
    const r = await t.call("POST", "/api/rag/pipelines", { cookie, body });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_request");
    expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  const bounds: [string, Record<string, unknown>][] = [
    ["chunkSize 50 with overlap 0", { chunkSize: 50, chunkOverlap: 0 }],
    ["chunkSize 20000", { chunkSize: 20000 }],
    ["overlap one below size", { chunkSize: 100, chunkOverlap: 99 }],
    ["topK 1", { retrievalTopK: 1 }],
    ["topK 100", { retrievalTopK: 100 }],
    ["name of 200 chars", { name: "n".repeat(200) }],
    ["a bare Ollama model", { embeddingModel: "mxbai-embed-large:latest" }],
    ["a namespaced Ollama model", { embeddingModel: "jina/jina-embeddings-v2-base-en" }],
  ];
  test.each(bounds)("accepts %s", async (_n, extra) => {
    const cookie = await userOn("unlimited");
    const r = await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "b", ...extra } });
    expect(r.status).toBe(201);
  });

  test("openai/ models are accepted once an OpenAI-compatible server is configured", async () => {
    const o = await makeApp({ openaiUrl: "http://127.0.0.1:9" });
    const cookie = await o.signup();
    const r = await o.call("POST", "/api/rag/pipelines", {
      cookie,
      body: { name: "o", embeddingModel: "openai/text-embedding-3-small" },
    });
    expect(r.status).toBe(201);
    await o.close();
  });
});

describe("tier limits", () => {
  test("a free user's second pipeline is refused until the tier is raised", async () => {
    const e = email("free");
    const cookie = await t.signup(e);
    expect((await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "one" } })).status).toBe(201);
    const second = await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "two" } });
    expect(second.status).toBe(403);
    expect(second.body.error.code).toBe("tier_limit_reached");
    expect(second.body.error.message).toContain("free");
    await t.services.db.atomically((tx) => updateUserTier(tx, e, "pro"));
    expect((await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "two" } })).status).toBe(201);
  });

  test("deleting the pipeline frees the slot", async () => {
    const cookie = await t.signup();
    const one = await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "one" } });
    await t.call("DELETE", `/api/rag/pipelines/${one.body.id}`, { cookie });
    expect((await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "again" } })).status).toBe(201);
  });

  test("pro allows 25", async () => {
    const cookie = await userOn("pro");
    for (let i = 0; i < 25; i++) {
      expect((await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: `p${i}` } })).status).toBe(201);
    }
    expect((await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "p25" } })).status).toBe(403);
  });
});

describe("list", () => {
  let cookie: string;
  const names = ["Alpha docs", "beta notes", "Gamma DOCS", "delta", "epsilon docs"];
  beforeAll(async () => {
    cookie = await userOn("unlimited");
    for (const name of names) await t.call("POST", "/api/rag/pipelines", { cookie, body: { name } });
  });

  test("uses page 1 and pageSize 10 by default, newest first, with the envelope", async () => {
    const r = await t.call("GET", "/api/rag/pipelines", { cookie });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, pageSize: 10, total: 5, totalPages: 1 });
    expect(r.body.data.map((p: { name: string }) => p.name)).toEqual([...names].reverse());
  });

  test("paginates with pageSize 1 and past the end", async () => {
    const p2 = await t.call("GET", "/api/rag/pipelines?page=2&pageSize=1", { cookie });
    expect(p2.body.data.map((p: { name: string }) => p.name)).toEqual(["delta"]);
    expect(p2.body).toMatchObject({ page: 2, pageSize: 1, total: 5, totalPages: 5 });
    const beyond = await t.call("GET", "/api/rag/pipelines?page=9&pageSize=2", { cookie });
    expect(beyond.status).toBe(200);
    expect(beyond.body).toMatchObject({ data: [], page: 9, total: 5, totalPages: 3 });
  });

  test("accepts pageSize 100 and refuses 101, 0 and junk", async () => {
    expect((await t.call("GET", "/api/rag/pipelines?pageSize=100", { cookie })).body.pageSize).toBe(100);
    for (const q of ["pageSize=101", "pageSize=0", "page=0", "page=abc", "pageSize=2.5"]) {
      const r = await t.call("GET", `/api/rag/pipelines?${q}`, { cookie });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe("invalid_request");
    }
  });

  test("search is a case-insensitive substring of the name", async () => {
    const r = await t.call("GET", "/api/rag/pipelines?search=DOCS", { cookie });
    expect(r.body.data.map((p: { name: string }) => p.name).sort()).toEqual(
      ["Alpha docs", "Gamma DOCS", "epsilon docs"].sort(),
    );
    expect(r.body.total).toBe(3);
    const none = await t.call("GET", "/api/rag/pipelines?search=%25", { cookie });
    expect(none.body.total).toBe(0);
  });

  test("filters by status and refuses unknown statuses", async () => {
    expect((await t.call("GET", "/api/rag/pipelines?status=empty", { cookie })).body.total).toBe(5);
    expect((await t.call("GET", "/api/rag/pipelines?status=ready", { cookie })).body.total).toBe(0);
    expect((await t.call("GET", "/api/rag/pipelines?status=bogus", { cookie })).status).toBe(400);
  });
});

describe("get, patch, delete", () => {
  test("get includes dataSources; patch changes only what is sent; delete removes it and its keys", async () => {
    const cookie = await userOn("pro");
    const p = (await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "Editable" } })).body;
    const got = await t.call("GET", `/api/rag/pipelines/${p.id}`, { cookie });
    expect(got.body).toMatchObject({ id: p.id, dataSources: [] });

    await Bun.sleep(2);
    const patched = await t.call("PATCH", `/api/rag/pipelines/${p.id}`, {
      cookie,
      body: { chunkSize: 500, retrievalTopK: 9 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: "Editable", chunkSize: 500, chunkOverlap: 200, retrievalTopK: 9 });
    expect(patched.body.updatedAt > p.updatedAt).toBe(true);

    const badOverlap = await t.call("PATCH", `/api/rag/pipelines/${p.id}`, { cookie, body: { chunkSize: 150 } });
    expect(badOverlap.status).toBe(400);
    expect(badOverlap.body.error.details[0].field).toBe("chunkOverlap");
    expect((await t.call("PATCH", `/api/rag/pipelines/${p.id}`, { cookie, body: { retrievalTopK: 0 } })).status).toBe(
      400,
    );
    expect((await t.call("PATCH", `/api/rag/pipelines/${p.id}`, { cookie, body: {} })).status).toBe(200);

    const key = await t.call("POST", `/api/rag/pipelines/${p.id}/keys`, { cookie, body: { name: "k" } });
    const del = await t.call("DELETE", `/api/rag/pipelines/${p.id}`, { cookie });
    expect(del.body).toEqual({ deleted: true, id: p.id });
    expect((await t.call("GET", `/api/rag/pipelines/${p.id}`, { cookie })).status).toBe(404);
    const keysLeft = t.services.db.reader.$client
      .query("SELECT count(*) n FROM api_keys WHERE collection_id = ?")
      .get(p.id) as { n: number };
    expect(keysLeft.n).toBe(0);
    const q = await t.call("POST", "/api/rag/query", {
      headers: { authorization: `Bearer ${key.body.key}` },
      body: { query: "x" },
    });
    expect(q.status).toBe(401);
  });

  test("unknown ids are 404 not_found", async () => {
    const cookie = await t.signup();
    for (const [m, body] of [["GET"], ["PATCH", { name: "x" }], ["DELETE"]] as const) {
      const r = await t.call(m, "/api/rag/pipelines/does-not-exist", { cookie, body });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("not_found");
    }
  });
});

describe("ownership", () => {
  test("a second user sees none of the first user's pipelines or keys: 404, never 403", async () => {
    const alice = await t.signup();
    const bob = await t.signup();
    const p = (await t.call("POST", "/api/rag/pipelines", { cookie: alice, body: { name: "Alice's" } })).body;
    const k = (await t.call("POST", `/api/rag/pipelines/${p.id}/keys`, { cookie: alice, body: { name: "k" } })).body;
    expect((await t.call("GET", "/api/rag/pipelines", { cookie: bob })).body.total).toBe(0);
    const attempts: [string, string, unknown?][] = [
      ["GET", `/api/rag/pipelines/${p.id}`],
      ["PATCH", `/api/rag/pipelines/${p.id}`, { name: "mine" }],
      ["DELETE", `/api/rag/pipelines/${p.id}`],
      ["GET", `/api/rag/pipelines/${p.id}/keys`],
      ["POST", `/api/rag/pipelines/${p.id}/keys`, { name: "steal" }],
      ["DELETE", `/api/rag/pipelines/${p.id}/keys/${k.id}`],
    ];
    for (const [m, path, body] of attempts) {
      const r = await t.call(m, path, { cookie: bob, body });
      expect([m, path, r.status]).toEqual([m, path, 404]);
    }
    const still = await t.call("GET", `/api/rag/pipelines/${p.id}`, { cookie: alice });
    expect(still.body.name).toBe("Alice's");
    expect((await t.call("GET", `/api/rag/pipelines/${p.id}/keys`, { cookie: alice })).body).toHaveLength(1);
  });
});

describe("derived status and counts", () => {
  test("empty → processing → ready, then error when a source fails; counts add up", async () => {
    const { waitFor } = await import("./support/wait");
    const cookie = await userOn("pro");
    const p = (
      await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "Stats", chunkSize: 100, chunkOverlap: 0 } })
    ).body;
    expect(p.status).toBe("empty");
    const text = Array.from({ length: 12 }, (_, i) => `Sentence number ${i} talks about topic ${i}.`).join(" ");
    const s = await t.call("POST", `/api/rag/pipelines/${p.id}/sources`, {
      cookie,
      body: { type: "text", name: "t", content: text },
    });
    expect(s.status).toBe(201);
    expect(["processing", "ready"]).toContain(
      (await t.call("GET", `/api/rag/pipelines/${p.id}`, { cookie })).body.status,
    );
    const ready = await waitFor("the pipeline to be ready", async () => {
      const r = (await t.call("GET", `/api/rag/pipelines/${p.id}`, { cookie })).body;
      return r.status === "ready" ? r : null;
    });
    expect(ready.sourceCount).toBe(1);
    expect(ready.chunkCount).toBe(ready.dataSources[0].chunkCount);
    expect(ready.chunkCount).toBeGreaterThan(1);
    const listed = (await t.call("GET", "/api/rag/pipelines?status=ready", { cookie })).body.data.map(
      (x: { id: string }) => x.id,
    );
    expect(listed).toContain(p.id);

    const gif = await t.call("POST", `/api/rag/pipelines/${p.id}/sources`, {
      cookie,
      body: { type: "file", fileName: "x.gif", fileSize: 12 },
    });
    const put = await t.handle(
      new Request(gif.body.uploadUrl.replace(/^http:\/\/[^/]+/, "http://localhost"), {
        method: "PUT",
        body: new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0, 0, 0, 0, 0, 0]),
      }),
    );
    expect(put.status).toBe(200);
    const errored = await waitFor("the pipeline to show an error", async () => {
      const r = (await t.call("GET", `/api/rag/pipelines/${p.id}`, { cookie })).body;
      return r.status === "error" ? r : null;
    });
    expect(errored.sourceCount).toBe(2);
    expect(errored.dataSources.find((d: { type: string }) => d.type === "file").error).toContain("image/gif");
    expect((await t.call("GET", "/api/rag/pipelines?status=error", { cookie })).body.total).toBe(1);
  });
});

describe("omitted optional fields stay omitted", () => {
  test("PATCH without chunkingStrategy or vectorProvider keeps them", async () => {
    const cookie = await userOn("pro");
    const p = (
      await t.call("POST", "/api/rag/pipelines", {
        cookie,
        body: { name: "Keep", chunkingStrategy: "sentence", chunkSize: 400, chunkOverlap: 40 },
      })
    ).body;
    const r = await t.call("PATCH", `/api/rag/pipelines/${p.id}`, { cookie, body: { retrievalTopK: 8 } });
    expect(r.body).toMatchObject({ chunkingStrategy: "sentence", vectorProvider: "lancedb", retrievalTopK: 8 });
  });

  test("a list without a status filter returns pipelines of every status", async () => {
    const cookie = await userOn("pro");
    const a = (await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "with data" } })).body;
    await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "empty one" } });
    await t.call("POST", `/api/rag/pipelines/${a.id}/sources`, {
      cookie,
      body: { type: "text", content: "some words to index" },
    });
    const all = (await t.call("GET", "/api/rag/pipelines", { cookie })).body;
    expect(all.total).toBe(2);
    expect(new Set(all.data.map((p: { status: string }) => p.status)).size).toBe(2);
  });

  test("the OpenAPI document gives no defaults to status, strategy or mode", async () => {
    const spec = JSON.stringify((await t.call("GET", "/docs/openapi.json")).body);
    expect(spec).not.toMatch(/"default":"(empty|recursive|lancedb|vector|text|builtin|awaiting_upload)"/);
  });
});

test("an unknown enum value is named with the values that are allowed", async () => {
  const cookie = await userOn("pro");
  const r = await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "x", chunkingStrategy: "semantic" } });
  expect(r.body.error.details[0]).toEqual({
    field: "chunkingStrategy",
    message: "must be one of: recursive, fixed, sentence, paragraph, markdown, token",
  });
});
