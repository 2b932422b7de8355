/**
 * Linked sources follow their parent's metadata (src/ingest/sync/inherited-metadata.ts):
 * which keys follow, a write made from a stale read of the parent, and a restricted caller
 * while the linked sources' chunk rows still carry the former labels.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import jwt from "jsonwebtoken";
import { linkToParent } from "../src/db/repo/source-fetches";
import { findDocumentById, updateDocument } from "../src/db/repo/documents";
import { followParent, parentNow } from "../src/ingest/sync/inherited-metadata";
import { DocumentsFixture } from "./support/documents";
import { waitFor } from "./support/ingest";

const f = new DocumentsFixture();
let tokenKey: { id: string; secret: string };

beforeAll(async () => {
  await f.open();
  const r = await f.c.call("POST", `/api/rag/pipelines/${f.pid}/keys`, { name: "t", scopes: ["query", "tokens"] });
  expect(r.status).toBe(201);
  tokenKey = { id: r.body.id, secret: r.body.tokenSecret };
}, 60_000);
afterAll(() => f.close());

test("inherited keys follow, own keys stay, dropped keys go; a file's location keys are its own", () => {
  const before = { team: "a", _access: ["g:a"], year: 2024 };
  const after = { team: "b", _access: ["g:b"] };
  expect(followParent({ team: "a", _access: ["g:a"], year: 2024 }, before, after)).toEqual(after);
  expect(followParent({ team: "mine", _access: ["g:a"], year: 2024 }, before, after)).toEqual({
    team: "mine",
    _access: ["g:b"],
  });
  // A parent key named like a file's location key never overwrites the file's own.
  const files = new Set(["size", "path"]);
  expect(followParent({ size: 10, path: "a.md", team: "a" }, { size: 10, team: "a" }, { size: 11 }, files)).toEqual({
    size: 10,
    path: "a.md",
  });
});

test("a child written from a stale read of its parent gets the parent's metadata as it is now", async () => {
  const parent = await f.put("parent", { type: "text", content: "The parent.", metadata: { team: "a" } });
  const child = await f.put("child", { type: "text", content: "The child.", metadata: { team: "a", own: 1 } });
  const db = f.t.services.db;
  const seen = (await findDocumentById(db.reader, parent.body.source.id))!.metadata;
  // The parent changes after the crawl or sync read it...
  expect((await f.put("parent", { type: "text", content: "The parent.", metadata: { team: "b" } })).status).toBe(200);
  // ...and the write made from that read links and fixes the child in its own transaction.
  const fixed = await db.atomically(async (t) => {
    await linkToParent(t, [child.body.source.id], parent.body.source.id);
    const row = (await findDocumentById(t, child.body.source.id))!;
    const metadata = (await parentNow(t, parent.body.source.id, seen))(row.metadata);
    await updateDocument(t, row.id, { metadata });
    return metadata;
  });
  expect(JSON.parse(fixed)).toEqual({ team: "b", own: 1 });
  // A parent change after the link reaches the child directly.
  expect((await f.put("parent", { type: "text", content: "The parent.", metadata: { team: "c" } })).status).toBe(200);
  expect((await f.get("child")).body.metadata).toEqual({ team: "c", own: 1 });
});

test("a restricted caller is not shown a linked source until its chunks carry the new labels", async () => {
  const parent = await f.put("crawl-like", { type: "text", content: "Parent.", metadata: { _access: ["g:a"] } });
  const page = await f.put("page", {
    type: "text",
    content: "OSPREY handbook: the page of the parent.",
    metadata: { _access: ["g:a"] },
  });
  await f.settled("page");
  await f.t.services.db.atomically((t) => linkToParent(t, [page.body.source.id], parent.body.source.id));
  const ask = (principals: string[]) =>
    f.t.call("POST", "/api/rag/query", {
      headers: {
        authorization: `Bearer ${jwt.sign({ key: tokenKey.id, principals }, tokenKey.secret, { algorithm: "HS256", expiresIn: 60 })}`,
      },
      body: { query: "OSPREY handbook", mode: "keyword", topK: 5 },
    });
  const found = async (principals: string[]) =>
    ((await ask(principals)).body.results as { content: string }[]).some((r) => r.content.includes("OSPREY"));
  expect(await found(["g:a"])).toBe(true);
  // Hold the chunk rewrite: SQLite has the new labels, the rows the old ones.
  const store = f.t.services.vectorStore;
  const rewrite = store.rewriteMetadata.bind(store);
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  store.rewriteMetadata = async (c, ids) => {
    if ([ids].flat().includes(page.body.source.id)) await held;
    return rewrite(c, ids);
  };
  try {
    const moved = await f.put("crawl-like", { type: "text", content: "Parent.", metadata: { _access: ["g:b"] } });
    expect(moved.status).toBe(200);
    expect((await f.get("page")).body.metadata).toEqual({ _access: ["g:b"] });
    // The old labels would let g:a in, the new ones g:b: neither is shown the page meanwhile.
    expect(await found(["g:a"])).toBe(false);
    expect(await found(["g:b"])).toBe(false);
    release();
    await waitFor("the page's chunks to follow", async () => ((await found(["g:b"])) ? true : undefined));
    expect(await found(["g:a"])).toBe(false);
  } finally {
    release();
    store.rewriteMetadata = rewrite;
  }
});
