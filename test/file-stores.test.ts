// One contract for both file stores (src/files/store.ts): on disk in a temporary data
// directory, and in a bucket on a real S3-compatible store (Ceph RGW, test/support/rgw.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3Client } from "bun";
import type { ObjectStorage } from "../src/config-storage";
import { DiskFileStore } from "../src/files/disk-store";
import { MIN_PART_BYTES, ObjectFileStore } from "../src/files/object-store";
import { readStoredFile } from "../src/files/read";
import { listUploads } from "../src/files/s3-multipart";
import type { FileStore } from "../src/files/store";
import type { Job, JobEvent } from "../src/ingest/job-types";
import { WorkerPool } from "../src/ingest/run/pool";
import { createLogger } from "../src/log";
import { haveRgw, NO_RGW, startRgw, type TestRgw } from "./support/rgw";

if (!haveRgw) console.log(`the bucket half of the file store tests is skipped: ${NO_RGW}`);

const MiB = 1024 * 1024;

interface Subject {
  store: FileStore;
  /** Everything the store holds, in its own words (paths, keys, open uploads), for "keeps nothing" checks. */
  contents(): Promise<string[]>;
  stop(): Promise<void>;
}

function onDisk(): Subject {
  const dir = mkdtempSync(join(tmpdir(), "ragd-files-"));
  return {
    store: new DiskFileStore(dir),
    contents: async () =>
      (readdirSync(join(dir, "files"), { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name).slice(dir.length + 1)),
    stop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

let rgw: TestRgw | undefined;

async function inBucket(): Promise<Subject> {
  rgw ??= await startRgw();
  // A prefix of its own, as an operator sharing a bucket would set.
  const storage: ObjectStorage = { ...rgw.storage, prefix: `tenant/${crypto.randomUUID().slice(0, 8)}` };
  const s3 = new S3Client({
    ...storage,
    endpoint: storage.endpoint!,
    accessKeyId: storage.accessKeyId!,
    secretAccessKey: storage.secretAccessKey!,
  });
  return {
    // Parts of the smallest size S3 takes, so that a few MiB make a multipart upload.
    store: new ObjectFileStore(storage, { partBytes: MIN_PART_BYTES }),
    contents: async () => {
      // The whole bucket: a key outside the prefix would be a fault too.
      const objects = ((await s3.list({})).contents ?? []).map((o) => o.key);
      const uploads = (await listUploads(storage, "")).map((u) => `upload of ${u.key}`);
      return [...objects, ...uploads];
    },
    stop: async () => {},
  };
}

afterAll(() => rgw?.stop(), 30_000);

/** Real worker threads, as ingestion runs its jobs. */
const pool = new WorkerPool(
  1,
  createLogger("error", () => {}),
  2,
);
afterAll(() => pool.close());

/** Runs the job of a stored text file in a worker thread; the chunks' text, or the error. */
function ingest(location: string): Promise<string> {
  const job: Job = {
    jobId: crypto.randomUUID(),
    document: {
      id: id(),
      type: "file",
      content: null,
      url: null,
      fileName: "note.txt",
      fileSize: null,
      fileLocation: location,
    },
    chunking: { strategy: "recursive", size: 200, overlap: 0 },
    model: "builtin",
    language: "legacy",
    embed: { ollamaUrl: "http://127.0.0.1:1", openaiUrl: null, openaiKey: null, batchSize: 32 },
    fetch: { allow: [], deny: [], maxBytes: MiB, timeoutMs: 1000 },
    ocr: { languages: ["eng"], pageTimeoutMs: 1000, dataDir: "." },
  };
  return new Promise((resolve, reject) => {
    const texts: string[] = [];
    const onEvent = (e: JobEvent) => {
      if (e.type === "rows") {
        texts.push(...e.rows.map((r) => r.text));
        pool.ack(e.jobId);
      }
      if (e.type === "done") resolve(texts.join(" "));
      if (e.type === "error") reject(new Error(e.message));
    };
    const send = pool.assign(job, { onEvent }, null);
    if (!send) reject(new Error("the pool is full"));
    else send();
  });
}

/** `size` pseudo-random bytes (the same for the same seed), in chunks of `chunk`. */
function bytes(size: number, seed = 1): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed * 2654435761;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** A request body sending `data` in chunks; with `failAfter`, the client hangs up after that many bytes. */
function body(data: Uint8Array, chunk = MiB, failAfter?: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (failAfter !== undefined && at >= failAfter) return c.error(new Error("the client hung up"));
      if (at >= data.byteLength) return c.close();
      c.enqueue(data.slice(at, at + chunk));
      at += chunk;
    },
  });
}

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const id = () => crypto.randomUUID();

const subjects: [string, boolean, () => Subject | Promise<Subject>][] = [
  ["on disk", true, onDisk],
  ["in a bucket on Ceph RGW", haveRgw, inBucket],
];

for (const [name, available, start] of subjects) {
  describe.skipIf(!available)(`the file store ${name}`, () => {
    let s: Subject;
    beforeAll(async () => {
      s = await start();
    }, 300_000);
    afterAll(() => s?.stop());

    const readBack = (col: string, doc: string) => readStoredFile(s.store.readLocation(col, doc));

    test("saves a file in parts, and reads back the same bytes, size and hash", async () => {
      const [col, doc] = [id(), id()];
      const data = bytes(12 * MiB);
      const saved = await s.store.save(col, doc, body(data), 12 * MiB);
      expect(saved).toEqual({ size: data.byteLength, hash: sha256(data) });
      expect(sha256(await readBack(col, doc))).toBe(sha256(data));
    });

    test("saves a small file, an empty one, and replaces a file saved again", async () => {
      const [col, doc, empty] = [id(), id(), id()];
      const first = bytes(1000, 2);
      expect((await s.store.save(col, doc, body(first), MiB)).hash).toBe(sha256(first));
      expect(await readBack(col, doc)).toEqual(first);
      const second = bytes(7 * MiB, 3);
      expect(await s.store.save(col, doc, body(second), 8 * MiB)).toEqual({ size: 7 * MiB, hash: sha256(second) });
      expect(sha256(await readBack(col, doc))).toBe(sha256(second));
      expect(await s.store.save(col, empty, null, MiB)).toEqual({ size: 0, hash: sha256(new Uint8Array(0)) });
      expect((await readBack(col, empty)).byteLength).toBe(0);
    });

    test("past its limit a file is refused and nothing of it is kept; the previous file stays", async () => {
      const [col, doc] = [id(), id()];
      const before = bytes(100, 4);
      await s.store.save(col, doc, body(before), MiB);
      const held = await s.contents();
      // 12 MiB against 11: two full parts are sent before the limit shows.
      const err = await s.store.save(col, doc, body(bytes(12 * MiB, 5)), 11 * MiB).catch((e) => e);
      expect(err).toMatchObject({ name: "FileError", code: "too_large" });
      expect(await s.contents()).toEqual(held);
      expect(await readBack(col, doc)).toEqual(before);
      // A new document's file past the limit: nothing at all.
      const other = id();
      await expect(s.store.save(col, other, body(bytes(2 * MiB)), MiB)).rejects.toThrow(/larger than/);
      expect(await s.contents()).toEqual(held);
    });

    test("a client hanging up mid-file leaves nothing", async () => {
      const held = await s.contents();
      const upload = s.store.save(id(), id(), body(bytes(12 * MiB, 6), MiB, 7 * MiB), 20 * MiB);
      await expect(upload).rejects.toThrow(/hung up/);
      expect(await s.contents()).toEqual(held);
    });

    test("an ingestion worker reads the file where the store says it is", async () => {
      const [col, doc] = [id(), id()];
      const text = "The heron stands in the shallow water of the fen at dawn.";
      await s.store.save(col, doc, body(new TextEncoder().encode(text)), MiB);
      expect(await ingest(s.store.readLocation(col, doc))).toBe(text);
      await s.store.remove(col, doc);
      // Not expect().rejects: while it waits, Bun does not deliver the worker's messages.
      const gone = await ingest(s.store.readLocation(col, doc)).catch((e: Error) => e);
      expect(String(gone)).toMatch(/the uploaded file is missing from the (data directory|object store)/);
    });

    test("removes a file, a missing one without complaint, and leaves the others", async () => {
      const [col, a, b] = [id(), id(), id()];
      await s.store.save(col, a, body(bytes(10, 7)), MiB);
      await s.store.save(col, b, body(bytes(10, 8)), MiB);
      await s.store.remove(col, a);
      await s.store.remove(col, a);
      await s.store.remove(col, id());
      await expect(readBack(col, a)).rejects.toThrow();
      expect(await readBack(col, b)).toEqual(bytes(10, 8));
    });

    test("lists the collections with files, and removes one collection whole", async () => {
      const before = await s.store.listCollections();
      const [gone, kept] = [id(), id()];
      const names = [id(), id(), id()];
      for (const [i, name] of names.entries()) await s.store.save(gone, name, body(bytes(10, i)), MiB);
      expect((await s.store.listFiles(gone)).sort()).toEqual(names.sort());
      expect(await s.store.listFiles(id())).toEqual([]);
      const keptDoc = id();
      await s.store.save(kept, keptDoc, body(bytes(10, 9)), MiB);
      expect((await s.store.listCollections()).sort()).toEqual([...before, gone, kept].sort());
      await s.store.removeCollection(gone);
      await s.store.removeCollectionIfEmpty(gone);
      expect((await s.store.listCollections()).sort()).toEqual([...before, kept].sort());
      expect((await s.contents()).filter((c) => c.includes(gone))).toEqual([]);
      expect(await readBack(kept, keptDoc)).toEqual(bytes(10, 9));
    });

    test("lists only the files last written before a time, when given one", async () => {
      const [col, doc] = [id(), id()];
      await s.store.save(col, doc, body(bytes(10, 7)), MiB);
      expect(await s.store.listFiles(col, Date.now() + 60_000)).toEqual([doc]);
      expect(await s.store.listFiles(col, Date.now() - 3_600_000)).toEqual([]);
      await s.store.removeCollection(col);
    });

    test("refuses names that are not ids, and stores nothing for them", async () => {
      const held = await s.contents();
      const [col, doc] = [id(), id()];
      for (const [c, d] of [
        ["..", doc],
        [col, "../x"],
        [`${col}/..`, doc],
        [col, `${doc.slice(0, 35)}/`],
      ] as const) {
        await expect(s.store.save(c, d, body(bytes(10)), MiB)).rejects.toThrow(/bad id/);
        expect(() => s.store.readLocation(c, d)).toThrow(/bad id/);
        await expect(s.store.remove(c, d)).rejects.toThrow(/bad id/);
      }
      await expect(s.store.removeCollection("..")).rejects.toThrow(/bad id/);
      await expect(s.store.removeCollection("")).rejects.toThrow(/bad id/);
      expect(await s.contents()).toEqual(held);
    });
  });
}

describe.skipIf(!haveRgw)("the bucket's staging area for clients' own uploads", () => {
  let s: Subject;
  let store: ObjectFileStore;
  beforeAll(async () => {
    s = await inBucket();
    store = s.store as ObjectFileStore;
  }, 300_000);

  /** A client's PUT through the URL ragd hands out. */
  const clientPut = async (col: string, doc: string, data: Uint8Array) =>
    (
      await fetch(store.uploadUrl(col, doc, data.byteLength, 60), {
        method: "PUT",
        body: new Blob([data as Uint8Array<ArrayBuffer>]),
      })
    ).status;

  test("the upload URL writes the staged key, not the kept file; keepStaged copies one version", async () => {
    const [col, doc] = [id(), id()];
    expect(await clientPut(col, doc, bytes(100, 1))).toBe(200);
    expect(await store.listFiles(col)).toEqual([]);
    const staged = await store.listStaged();
    expect(staged.filter((f) => f.collectionId === col)).toMatchObject([{ documentId: doc, size: 100 }]);
    const saved = await store.keepStaged(col, doc, 100);
    expect(saved).toEqual({ size: 100, hash: sha256(bytes(100, 1)) });
    // Another PUT through the same URL reaches the staged key only.
    expect(await clientPut(col, doc, bytes(100, 2))).toBe(200);
    expect(await readStoredFile(store.readLocation(col, doc))).toEqual(bytes(100, 1));
    await store.removeStaged(col, doc);
    expect((await store.listStaged()).filter((f) => f.collectionId === col)).toEqual([]);
  });

  test("removing a collection removes its staged uploads too", async () => {
    const [gone, kept] = [id(), id()];
    expect(await clientPut(gone, id(), bytes(10, 3))).toBe(200);
    expect(await clientPut(kept, id(), bytes(10, 4))).toBe(200);
    await store.removeCollection(gone);
    const left = (await store.listStaged()).map((f) => f.collectionId);
    expect(left).toContain(kept);
    expect(left).not.toContain(gone);
  });
});
