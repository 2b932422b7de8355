/**
 * A restricted caller (a tenant token, a key with its own filter) is shown a source only
 * while its chunk rows carry its current labels (retrieval/current-labels.ts). A replacement
 * through the documents API stores the new version's text and metadata at once while the old
 * chunks answer until the new ones are committed: a token the old `_access` let in read the
 * new version, meant for another group, through result metadata, `expand` and MCP `read`.
 * And a restricted caller is not told a source's access list.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import jwt from "jsonwebtoken";
import { DocumentsFixture } from "./support/documents";
import { connectHttp, jsonOf, textOf } from "./support/mcp";

const f = new DocumentsFixture();
let server: ReturnType<typeof Bun.serve>;
let tokenKey: { id: string; secret: string };
let filtered: string;

beforeAll(async () => {
  await f.open();
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => f.t.handle(req) });
  const r = await f.c.call("POST", `/api/rag/pipelines/${f.pid}/keys`, { name: "t", scopes: ["query", "tokens"] });
  expect(r.status).toBe(201);
  tokenKey = { id: r.body.id, secret: r.body.tokenSecret };
  const k = await f.c.call("POST", `/api/rag/pipelines/${f.pid}/keys`, { name: "f", filter: { team: "a" } });
  expect(k.status).toBe(201);
  filtered = k.body.key;
}, 60_000);

afterAll(async () => {
  server?.stop(true);
  await f.close();
});

const token = (principals: string[]) =>
  jwt.sign({ key: tokenKey.id, principals }, tokenKey.secret, { algorithm: "HS256", expiresIn: 60 });

const ask = (bearer: string) =>
  f.t.call("POST", "/api/rag/query", {
    headers: { authorization: `Bearer ${bearer}` },
    body: { query: "GANNET memo", mode: "keyword", topK: 5, expand: { chars: 200 } },
  });

/** The texts a token for `group` finds for `query`. */
const found = async (group: string, query: string, mode = "keyword"): Promise<string[]> =>
  (
    await f.t.call("POST", "/api/rag/query", {
      headers: { authorization: `Bearer ${token([group])}` },
      body: { query, mode, topK: 5 },
    })
  ).body.results.map((r: { content: string }) => r.content);

test("a replacement for another group is not shown through the old chunks while they answer", async () => {
  const first = { type: "text", name: "Memo", content: "GANNET memo: the cafeteria opens at nine." };
  expect((await f.put("memo", { ...first, metadata: { _access: ["group:a"], team: "a" } })).status).toBe(201);
  await f.settled("memo");
  const a = token(["group:a"]);
  const before = await ask(a);
  expect(before.body.results.map((r: { content: string }) => r.content)).toEqual([first.content]);
  // Not told who else may see it.
  expect(before.body.results[0].metadata._access).toBeUndefined();
  expect(before.body.results[0].metadata.team).toBe("a");

  // The new version waits for its embedding: the old chunks answer meanwhile.
  await f.fake.set({ latencyMs: 60_000 });
  const secret = "GANNET memo: TOPSECRET merger closes Friday.";
  const replaced = await f.put("memo", {
    type: "text",
    name: "Board memo (B only)",
    content: secret,
    metadata: { _access: ["group:b"], team: "b" },
  });
  expect(replaced.status).toBe(200);
  for (const bearer of [a, filtered]) {
    const during = await ask(bearer);
    expect(during.status).toBe(200);
    expect(JSON.stringify(during.body)).not.toContain("TOPSECRET");
    expect(JSON.stringify(during.body)).not.toContain("Board memo");
  }
  // An unrestricted key still finds the old chunks, as before.
  const full = await ask(f.key);
  expect(full.body.results.map((r: { content: string }) => r.content)).toEqual([first.content]);

  const client = await connectHttp(`http://127.0.0.1:${server.port}`, a);
  try {
    const sourceId = full.body.results[0].metadata.sourceId;
    const read = await client.callTool({ name: "read", arguments: { sourceId } });
    expect(read.isError).toBe(true);
    expect(textOf(read)).not.toContain("TOPSECRET");
    const listed = jsonOf(await client.callTool({ name: "list_sources", arguments: {} }));
    expect(JSON.stringify(listed)).not.toContain("Board memo");
  } finally {
    await client.close();
  }

  // Once the new version is in, it is group B's alone.
  await f.fake.set({ latencyMs: 0 });
  await f.settled("memo");
  expect((await ask(a)).body.results).toEqual([]);
  const b = await ask(token(["group:b"]));
  expect(b.body.results.map((r: { content: string }) => r.content)).toEqual([secret]);
}, 60_000);

test("after a change of labels alone, the new group finds the source and the old one does not", async () => {
  const text = "KESTREL roster: the night shift starts at ten.";
  const put = (group: string) => f.put("roster", { type: "text", content: text, metadata: { _access: [group] } });
  expect((await put("group:a")).status).toBe(201);
  await f.settled("roster");
  const sees = async (group: string) => (await found(group, "KESTREL roster")).includes(text);
  expect(await sees("group:a")).toBe(true);
  // The chunk rows get the new labels in place; their copy comes back from the table with its keys reordered.
  const moved = await put("group:b");
  expect(moved.body).toMatchObject({ status: "unchanged", metadataChanged: true });
  expect(await sees("group:b")).toBe(true);
  expect(await sees("group:a")).toBe(false);
});

test("a source is shown only if the rows its filter matched carry its labels, as on a replica that lags", async () => {
  const text = "OSPREY ledger: the audit closes on Friday.";
  expect((await f.put("ledger", { type: "text", content: text, metadata: { _access: ["group:a"] } })).status).toBe(201);
  await f.settled("ledger");
  const sees = async (group: string) => (await found(group, "OSPREY ledger")).includes(text);
  expect(await sees("group:a")).toBe(true);
  // What a replica reads while another one has just committed new labels: the shared database
  // says the source is indexed with group B's labels, its own table handle still has group A's rows.
  await f.t.services.db.atomically((tx) =>
    tx.$client
      .query(
        `UPDATE documents SET metadata = '{"_access":["group:b"]}', updated_at = ?1, indexed_at = ?1 WHERE external_id = 'ledger'`,
      )
      .run(new Date().toISOString()),
  );
  expect(await sees("group:a")).toBe(false);
});

test("a restricted query checks the labels its own lists read, with no read of its own", async () => {
  const text = "HERON minutes: the board meets in March.";
  const put = (group: string) => f.put("minutes", { type: "text", content: text, metadata: { _access: [group] } });
  expect((await put("group:a")).status).toBe(201);
  await f.settled("minutes");
  expect((await put("group:b")).body).toMatchObject({ status: "unchanged", metadataChanged: true });
  const store = f.t.services.vectorStore;
  const looked: string[][] = [];
  const labelCopies = store.labelCopies.bind(store);
  store.labelCopies = (collectionId, generation, ids, where) => {
    looked.push(ids);
    return labelCopies(collectionId, generation, ids, where);
  };
  try {
    for (const mode of ["keyword", "vector", "hybrid"]) {
      expect(await found("group:b", "HERON minutes", mode)).toContain(text);
      expect(await found("group:a", "HERON minutes", mode)).not.toContain(text);
    }
  } finally {
    store.labelCopies = labelCopies;
  }
  expect(looked).toEqual([]);
});
