/**
 * Signed upload URLs under attack: tampered, forged and genuinely expired
 * signatures, replays, sizes over the declared or the configured limit, another
 * source's signature, path tricks sent raw over TCP, empty bodies. After every
 * case the data dir's files/ tree must hold exactly the files that were accepted.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildApp } from "../src/app";
import { loadSecret, signUploadUrl } from "../src/files/signing";
import { makeApp, type TestApp } from "./support/app";
import { bytesOf, Client, filesUnder, rawHttp, waitFor, type SourceJson } from "./support/ingest";

let t: TestApp;
let c: Client;
let pid: string;
/** Files accepted so far, relative to files/: exactly these may exist. */
const kept: string[] = [];

const MB = 1024 * 1024;

beforeAll(async () => {
  t = await makeApp({ maxUploadMb: 1 });
  c = await Client.create(t);
  pid = await c.pipeline({ name: "Uploads" });
});
afterAll(() => t?.close());

const filesDir = () => join(t.dataDir, "files");

/** files/ holds exactly the accepted files, and no half-written temporary file. */
function expectFilesTree(): void {
  expect(filesUnder(filesDir())).toEqual([...kept].sort());
  expect(readdirSync(join(filesDir(), ".tmp"))).toEqual([]);
}

/** A new file source awaiting its bytes. */
async function newFileSource(fileName = "doc.txt", fileSize = 32): Promise<SourceJson & { uploadUrl: string }> {
  const r = await c.addSource(pid, { type: "file", fileName, fileSize });
  expect(r.status).toBe(201);
  return r.body;
}

const withQuery = (url: string, patch: Record<string, string>) => {
  const u = new URL(url);
  for (const [k, v] of Object.entries(patch)) u.searchParams.set(k, v);
  return u.href;
};

async function statusOf(id: string): Promise<string | undefined> {
  return (await c.source(pid, id))?.status;
}

// Different bytes each time: the same file twice in one pipeline is refused (docs/API.md).
let uploads = 0;
const text32 = () => `32 bytes of upload text, no ${String(++uploads).padStart(3, "0")}.`;
let lastText = "";
const body32 = () => bytesOf((lastText = text32()));

describe("the signed upload URL", () => {
  test("a valid URL takes the raw bytes without a cookie and stores them under files/<pipeline>/<source>", async () => {
    const s = await newFileSource();
    expect(s.status).toBe("awaiting_upload");
    const expiresIn = Date.parse(s.uploadExpiresAt!) - Date.now();
    expect(expiresIn).toBeGreaterThan(14 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(15 * 60_000);
    const put = await c.put(s.uploadUrl, body32());
    expect(put.status).toBe(200);
    expect(put.body.source).toMatchObject({ id: s.id, status: "queued", fileSize: 32 });
    kept.push(`${pid}/${s.id}`);
    expect(readFileSync(join(filesDir(), pid, s.id), "utf8")).toBe(lastText);
    expectFilesTree();
    expect((await c.settled(pid, s.id)).status).toBe("ready");
  });

  test("a tampered signature is 403 and nothing is written", async () => {
    const s = await newFileSource();
    const sig = new URL(s.uploadUrl).searchParams.get("sig")!;
    const flipped = (sig[0] === "A" ? "B" : "A") + sig.slice(1);
    for (const url of [withQuery(s.uploadUrl, { sig: flipped }), withQuery(s.uploadUrl, { sig: sig.slice(0, -2) })]) {
      const r = await c.put(url, body32());
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("forbidden");
      expect(r.body.error.message).toContain("signature");
    }
    const bare = await c.put(s.uploadUrl.split("?")[0]!, body32());
    expect(bare.status).toBe(403);
    expect(await statusOf(s.id)).toBe("awaiting_upload");
    expectFilesTree();
  });

  test("an expiry moved later by hand breaks the signature (403)", async () => {
    const s = await newFileSource();
    const later = String(Date.now() + 24 * 3600_000);
    const r = await c.put(withQuery(s.uploadUrl, { expires: later }), body32());
    expect(r.status).toBe(403);
    expect(r.body.error.message).toContain("signature");
    expect(await statusOf(s.id)).toBe("awaiting_upload");
    expectFilesTree();
  });

  test("a declared size raised by hand breaks the signature (403)", async () => {
    const s = await newFileSource();
    const r = await c.put(withQuery(s.uploadUrl, { size: "64" }), bytesOf("x".repeat(64)));
    expect(r.status).toBe(403);
    expectFilesTree();
  });

  test("a genuinely expired URL, signed with the server's own secret, is 403 and says it expired", async () => {
    const s = await newFileSource();
    const url = signUploadUrl(loadSecret(t.dataDir), "http://localhost", {
      sourceId: s.id,
      expires: Date.now() - 1000,
      size: 32,
    });
    const r = await c.put(url, body32());
    expect(r.status).toBe(403);
    expect(r.body.error.message).toContain("expired");
    expect(await statusOf(s.id)).toBe("awaiting_upload");
    expectFilesTree();
  });

  test("a replayed PUT is 409 and the first file is kept as it was", async () => {
    const s = await newFileSource();
    expect((await c.put(s.uploadUrl, body32())).status).toBe(200);
    const first = lastText;
    kept.push(`${pid}/${s.id}`);
    const replay = await c.put(s.uploadUrl, bytesOf("THIRTY-TWO BYTES, A DIFFERENT 1!"));
    expect(replay.status).toBe(409);
    expect(replay.body.error.code).toBe("conflict");
    expect(readFileSync(join(filesDir(), pid, s.id), "utf8")).toBe(first);
    await c.settled(pid, s.id);
    expectFilesTree();
  });

  test("two PUTs racing on one URL: exactly one wins, the other is 409", async () => {
    const s = await newFileSource();
    const slow = (text: string) =>
      new ReadableStream<Uint8Array>({
        async start(ctl) {
          ctl.enqueue(bytesOf(text.slice(0, 16)));
          await Bun.sleep(50);
          ctl.enqueue(bytesOf(text.slice(16)));
          ctl.close();
        },
      });
    const [a, b] = await Promise.all([
      c.put(s.uploadUrl, slow("thirty-two bytes of upload text.")),
      c.put(s.uploadUrl, slow("THIRTY-TWO BYTES, A DIFFERENT 1!")),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    kept.push(`${pid}/${s.id}`);
    const stored = readFileSync(join(filesDir(), pid, s.id), "utf8");
    expect(stored).toBe(a.status === 200 ? "thirty-two bytes of upload text." : "THIRTY-TWO BYTES, A DIFFERENT 1!");
    await c.settled(pid, s.id);
    expectFilesTree();
  });

  test("more bytes than declared is 413, keeps nothing, and leaves the source waiting for a correct upload", async () => {
    const s = await newFileSource("doc.txt", 32);
    const r = await c.put(s.uploadUrl, bytesOf("y".repeat(4096)));
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe("payload_too_large");
    expect(existsSync(join(filesDir(), pid, s.id))).toBe(false);
    expect(await statusOf(s.id)).toBe("awaiting_upload");
    expectFilesTree();
    const ok = await c.put(s.uploadUrl, body32());
    expect(ok.status).toBe(200);
    kept.push(`${pid}/${s.id}`);
    await c.settled(pid, s.id);
    expectFilesTree();
  });

  test("a declared size over RAGD_MAX_UPLOAD_MB is refused at create with 413, and no source is made", async () => {
    const before = (await c.sources(pid)).length;
    const r = await c.addSource(pid, { type: "file", fileName: "big.bin", fileSize: 2 * MB });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe("payload_too_large");
    expect((await c.sources(pid)).length).toBe(before);
    const atLimit = await c.addSource(pid, { type: "file", fileName: "ok.txt", fileSize: 1 * MB });
    expect(atLimit.status).toBe(201);
    expectFilesTree();
  });

  test("another source's signature on this source's path is 403; neither source gets a file", async () => {
    const a = await newFileSource();
    const b = await newFileSource();
    const crossed = `http://localhost/uploads/${b.id}?${a.uploadUrl.split("?")[1]}`;
    const r = await c.put(crossed, body32());
    expect(r.status).toBe(403);
    expect(await statusOf(a.id)).toBe("awaiting_upload");
    expect(await statusOf(b.id)).toBe("awaiting_upload");
    expectFilesTree();
  });

  test("an empty body is 400 and keeps nothing", async () => {
    const s = await newFileSource();
    for (const body of [null, new Uint8Array(0)]) {
      const r = await c.put(s.uploadUrl, body);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe("invalid_request");
    }
    expect(await statusOf(s.id)).toBe("awaiting_upload");
    expectFilesTree();
  });

  test("a valid signature for a source that does not exist is 404", async () => {
    const ghost = "0190c1d2-0000-7000-8000-00000000abcd";
    const url = signUploadUrl(loadSecret(t.dataDir), "http://localhost", {
      sourceId: ghost,
      expires: Date.now() + 60_000,
      size: 32,
    });
    const r = await c.put(url, body32());
    expect(r.status).toBe(404);
    expectFilesTree();
  });

  test("deleting a file source deletes its stored file", async () => {
    const s = await newFileSource();
    expect((await c.put(s.uploadUrl, body32())).status).toBe(200);
    await c.settled(pid, s.id);
    expect(existsSync(join(filesDir(), pid, s.id))).toBe(true);
    const del = await c.call("DELETE", `/api/rag/pipelines/${pid}/sources/${s.id}`);
    expect(del.body).toEqual({ deleted: true, id: s.id });
    expect(existsSync(join(filesDir(), pid, s.id))).toBe(false);
    expectFilesTree();
  });
});

describe("path tricks, sent raw over TCP", () => {
  let server: ReturnType<typeof Bun.serve>;
  /** Names a climb out of files/ would create, in the data dir and the directory above it. */
  const escapes = () =>
    [t.dataDir, dirname(t.dataDir), filesDir(), join(filesDir(), pid)].flatMap((d) =>
      readdirSync(d)
        .filter((n) => n.startsWith("escaped") || n === "etc" || n === "passwd")
        .map((n) => join(d, n)),
    );

  beforeAll(() => {
    const app = buildApp(t.services);
    server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => app.handle(req) });
  });
  afterAll(() => server?.stop(true));

  const query = (sourceId: string) => {
    const u = new URL(
      signUploadUrl(loadSecret(t.dataDir), "http://x", { sourceId, expires: Date.now() + 60_000, size: 5 }),
    );
    return u.search;
  };
  const tricks: [string, (real: string) => string][] = [
    ["dot segments", () => "/uploads/../../escaped"],
    ["dot segments to /etc/passwd", () => "/uploads/../../etc/passwd"],
    ["encoded slashes", () => "/uploads/..%2F..%2Fescaped"],
    ["encoded dots and slashes", () => "/uploads/%2e%2e%2f%2e%2e%2fescaped"],
    ["double-encoded slashes", () => "/uploads/..%252F..%252Fescaped"],
    ["backslashes", () => "/uploads/..%5C..%5Cescaped"],
    ["a real id followed by an encoded climb", (real) => `/uploads/${real}%2F..%2F..%2F..%2Fescaped`],
    ["an absolute path", () => "/uploads/%2Ftmp%2Fescaped"],
  ];

  test.each(tricks)(
    "%s: 4xx, with or without a matching signature, and nothing written outside files/",
    async (_n, pathOf) => {
      const s = await newFileSource("t.txt", 5);
      const path = pathOf(s.id);
      const raw = path.slice("/uploads/".length);
      let decoded = raw;
      try {
        decoded = decodeURIComponent(raw);
      } catch {}
      // Unsigned, signed for the raw id, and signed for the decoded id (as if the attacker knew the secret).
      for (const q of ["?expires=9999999999999&size=5&sig=AAAA", query(raw), query(decoded)]) {
        const r = await rawHttp(server.port!, "PUT", path + q, "hello");
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
      }
      expect(await statusOf(s.id)).toBe("awaiting_upload");
      expectFilesTree();
      expect(escapes()).toEqual([]);
    },
  );
});

/** Starts a 64-byte PUT that sends half its bytes and then waits until released. */
async function startGatedUpload(uploadUrl: string) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const body = new ReadableStream<Uint8Array>({
    async start(ctl) {
      ctl.enqueue(bytesOf("x".repeat(32)));
      await gate;
      ctl.enqueue(bytesOf("y".repeat(32)));
      ctl.close();
    },
  });
  const put = c.put(uploadUrl, body);
  await waitFor("the upload to be streaming into files/.tmp", () => readdirSync(join(filesDir(), ".tmp")).length === 1);
  return { put, release };
}

describe("regressions (found by these tests, now fixed)", () => {
  test("deleting the pipeline while a file uploads: the PUT is 404 and no files/<pipeline> directory is left", async () => {
    const own = await c.pipeline({ name: "Deleted mid-upload" });
    const s = (await c.addSource(own, { type: "file", fileName: "a.txt", fileSize: 64 })).body as SourceJson & {
      uploadUrl: string;
    };
    const { put, release } = await startGatedUpload(s.uploadUrl);
    expect((await c.call("DELETE", `/api/rag/pipelines/${own}`)).status).toBe(200);
    expect(existsSync(join(filesDir(), own))).toBe(false);
    release();
    const r = await put;
    expect(r.status).toBe(404);
    expect(existsSync(join(filesDir(), own))).toBe(false);
    expectFilesTree();
  });

  test("deleting the source while its file uploads: the PUT is 404 and the bytes are not kept", async () => {
    const own = await c.pipeline({ name: "Source deleted mid-upload" });
    const s = (await c.addSource(own, { type: "file", fileName: "b.txt", fileSize: 64 })).body as SourceJson & {
      uploadUrl: string;
    };
    const { put, release } = await startGatedUpload(s.uploadUrl);
    expect((await c.call("DELETE", `/api/rag/pipelines/${own}/sources/${s.id}`)).status).toBe(200);
    release();
    const r = await put;
    expect(r.status).toBe(404);
    expect(existsSync(join(filesDir(), own, s.id))).toBe(false);
    expectFilesTree();
  });
});
