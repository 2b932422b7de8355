/**
 * Setting a connected source's credentials again (docs/API.md, PATCH of a source): a Git
 * source whose repository (served by `git http-backend` on loopback, requiring HTTP Basic)
 * refused the old token syncs with the new one; an s3 source on a real S3-compatible store
 * (Ceph RGW) whose secret was wrong syncs with the new keys. Neither answer nor list shows
 * them; the fields are 400 on other types and by the rules of creation.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { ObjectStorage } from "../src/config-storage";
import { presignUrl } from "../src/files/presign";
import { DocumentsFixture } from "./support/documents";
import { type GitServer, startGitServer } from "./support/git-server";
import { type SourceJson, waitFor } from "./support/ingest";
import { haveRgw, NO_RGW, startRgw, type TestRgw } from "./support/rgw";
import { tempDir } from "./support/temp";

if (!haveRgw) console.log(`s3 credential tests skipped: ${NO_RGW}`);

const base = tempDir();
const f = new DocumentsFixture();
let repo: GitServer;
const NEW_TOKEN = "rotated-token-5d1c";
const basic = (user: string, secret: string) => `Basic ${btoa(`${user}:${secret}`)}`;

beforeAll(async () => {
  repo = await startGitServer(base, "docs", { requireAuth: basic("reader", NEW_TOKEN) });
  repo.write("guide.md", "The rotated handbook explains how keys are rotated every quarter.");
  repo.git("add", "-A");
  repo.git("commit", "-q", "-m", "first");
  repo.git("push", "-q", "origin", "main");
  await f.open({ fetchAllow: ["127.0.0.1"] });
});
afterAll(async () => {
  await f.close();
  await repo.stop();
  rmSync(base, { recursive: true, force: true });
});

const patch = (id: string, body: unknown) => f.c.call("PATCH", `/api/rag/pipelines/${f.pid}/sources/${id}`, body);
const refetch = (id: string) => f.c.call("POST", `/api/rag/pipelines/${f.pid}/sources/${id}/refetch`);
const settled = (id: string, want: "ready" | "failed") =>
  waitFor(`the sync to end ${want}`, async () => {
    const s = await f.c.source(f.pid, id);
    return s?.status === want ? s : undefined;
  });
const childrenOf = async (id: string) => (await f.c.sources(f.pid)).filter((s) => s.parentSourceId === id);

test("credential fields on a source of another type, or against creation's rules: 400", async () => {
  const text = (await f.c.addSource(f.pid, { type: "text", content: "plain words" })).body.id as string;
  const git = await f.c.addSource(f.pid, { type: "git", url: repo.url, refreshEvery: null });
  expect(git.status).toBe(201);
  const cases: [string, Record<string, unknown>, string][] = [
    [text, { token: "t" }, "token: is for git sources"],
    [text, { accessKeyId: "k", secretAccessKey: "s" }, "accessKeyId: is for s3 sources"],
    [git.body.id, { accessKeyId: "k", secretAccessKey: "s" }, "accessKeyId: is for s3 sources"],
    [git.body.id, { password: "p", token: "t" }, "give a password or a token, not both"],
    [git.body.id, { token: "" }, "token: must be a string of 1..1000 characters"],
  ];
  for (const [id, body, message] of cases) {
    const r = await patch(id, body);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain(message);
  }
});

describe("a Git source's token rotated", () => {
  let source: SourceJson;

  test("created with a token the repository refuses, the sync fails", async () => {
    const r = await f.c.addSource(f.pid, { type: "git", url: repo.url, username: "reader", token: "old-token" });
    expect(r.status).toBe(201);
    source = await settled(r.body.id, "failed");
    expect(source.error).toContain("cannot be fetched");
  });

  test("PATCH sets the new token: never shown, and the next sync sends it", async () => {
    const r = await patch(source.id, { username: "reader", token: NEW_TOKEN });
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.body)).not.toContain(NEW_TOKEN);
    expect(r.body.url).toBe(repo.url);
    expect(JSON.stringify(await f.c.sources(f.pid))).not.toContain(NEW_TOKEN);
    const before = repo.authorizations().length;
    expect((await refetch(source.id)).status).toBe(202);
    source = await settled(source.id, "ready");
    expect(source.syncReport).toMatchObject({ added: 1, failed: 0 });
    expect(repo.authorizations().slice(before)).toContain(basic("reader", NEW_TOKEN));
    expect((await childrenOf(source.id)).map((s) => s.externalId)).toEqual(["guide.md"]);
  });
});

describe.skipIf(!haveRgw)("an s3 source's keys set again, on Ceph RGW", () => {
  let rgw: TestRgw;
  let store: ObjectStorage;

  beforeAll(async () => {
    rgw = await startRgw();
    store = await rgw.createBucket("ragd-src-keys");
    const put = presignUrl(store, { method: "PUT", key: "notes/keys.md", expiresInS: 60 });
    const r = await fetch(put, { method: "PUT", body: "The bucket notes say the keys were set again." });
    if (!r.ok) throw new Error(`PUT: ${r.status}`);
  }, 300_000);
  afterAll(async () => {
    await rgw?.stop();
  }, 30_000);

  test("wrong secret, then PATCH with the right keys: synced, the keys never shown", async () => {
    const r = await f.c.addSource(f.pid, {
      type: "s3",
      endpoint: store.endpoint,
      bucket: store.bucket,
      accessKeyId: store.accessKeyId,
      secretAccessKey: "not-the-secret",
    });
    expect(r.status).toBe(201);
    const failed = await settled(r.body.id, "failed");
    expect(failed.error).toContain("refused the source's keys (403)");
    const half = await patch(r.body.id, { accessKeyId: store.accessKeyId });
    expect(half.status).toBe(400);
    expect(half.body.error.message).toContain("secretAccessKey");
    expect((await patch(r.body.id, { token: "t" })).status).toBe(400);
    const ok = await patch(r.body.id, { accessKeyId: store.accessKeyId, secretAccessKey: store.secretAccessKey });
    expect(ok.status).toBe(200);
    const listed = JSON.stringify(await f.c.sources(f.pid));
    for (const shown of [JSON.stringify(ok.body), listed]) {
      expect(shown).not.toContain(store.secretAccessKey!);
      expect(shown).not.toContain(store.accessKeyId!);
    }
    expect((await refetch(r.body.id)).status).toBe(202);
    const synced = await settled(r.body.id, "ready");
    expect(synced.syncReport).toMatchObject({ added: 1, failed: 0 });
    expect((await childrenOf(r.body.id)).map((s) => s.externalId)).toEqual(["notes/keys.md"]);
  });
});
