/**
 * Uploaded files in an S3-compatible bucket (the FileStore of store.ts), under
 * `<prefix>/files/<collection id>/<document id>`: `ragd serve`'s store with RAGD_STORAGE_URL
 * set (docs/ARCHITECTURE.md, Object storage). A file source's client PUTs its file
 * itself, through a presigned URL (uploadUrl), to `<prefix>/uploads/…`, from where ragd
 * copies it (keepStaged).
 *
 * Bytes stream to the store as they arrive, hashed on the way, and at most one part is
 * held in memory: a file that fits in one part is one PUT once it has all arrived (so
 * nothing exists before it is whole); a longer one is a multipart upload, completed at
 * the end or aborted on any failure, so a file past its limit leaves no object and no
 * parts. Replacing a key is atomic in S3: a reader sees the old file or the new one.
 */
import { S3Client } from "bun";
import type { ObjectStorage } from "../config-storage";
import { storageKey } from "../config-storage";
import { presignPut, presignUrl } from "./presign";
import { abortUpload, completeUpload, createUpload, uploadPart } from "./s3-multipart";
import { checkIds, copyLimited, type FileStore, isStoreId, type SavedFile } from "./store";

/** Where clients' own uploads land before ragd takes them (uploadUrl, keepStaged). */
export const STAGED_AREA = "uploads/";

/** A client's upload waiting in the staging area. */
export interface StagedFile {
  collectionId: string;
  documentId: string;
  size: number;
}

/** S3 refuses parts under 5 MiB (but the last). */
export const MIN_PART_BYTES = 5 * 1024 * 1024;
const DEFAULT_PART_BYTES = 8 * 1024 * 1024;
/** How long a worker's URL for reading a file lasts: the job reads it as soon as it starts. */
const READ_GRANT_S = 3600;

export class ObjectFileStore implements FileStore {
  private readonly s3: S3Client;
  private readonly partBytes: number;

  constructor(
    private readonly storage: ObjectStorage,
    opts: { partBytes?: number } = {},
  ) {
    // The multipart steps and the workers' URLs are presigned by ragd itself (presign.ts).
    if (storage.accessKeyId === null || storage.secretAccessKey === null)
      throw new Error("files in object storage need RAGD_S3_ACCESS_KEY_ID and RAGD_S3_SECRET_ACCESS_KEY");
    this.partBytes = opts.partBytes ?? DEFAULT_PART_BYTES;
    if (this.partBytes < MIN_PART_BYTES) throw new Error(`a part is at least ${MIN_PART_BYTES} bytes`);
    this.s3 = bucketClient(storage);
  }

  /** The full key of a document's file. */
  keyOf(collectionId: string, documentId: string): string {
    checkIds(collectionId, documentId);
    return storageKey(this.storage, `files/${collectionId}/${documentId}`);
  }

  async save(
    collectionId: string,
    documentId: string,
    body: ReadableStream<Uint8Array> | null,
    limit: number,
  ): Promise<SavedFile> {
    const key = this.keyOf(collectionId, documentId);
    const upload = new StreamingUpload(this.storage, key, this.partBytes, (bytes) => this.s3.write(key, bytes));
    try {
      const saved = await copyLimited(body, limit, (part) => upload.write(part));
      await upload.finish();
      return saved;
    } catch (err) {
      await upload.abort();
      throw err;
    }
  }

  readLocation(collectionId: string, documentId: string): string {
    const key = this.keyOf(collectionId, documentId);
    return presignUrl(this.storage, { method: "GET", key, expiresInS: READ_GRANT_S });
  }

  /** Where a client's own upload of a document's file lands (uploadUrl), apart from the file ragd keeps. */
  stagedKeyOf(collectionId: string, documentId: string): string {
    checkIds(collectionId, documentId);
    return storageKey(this.storage, `${STAGED_AREA}${collectionId}/${documentId}`);
  }

  /**
   * A URL the client PUTs the document's file to itself: exactly `size` bytes, until
   * `expiresInS` from now (presign.ts). It writes the staged key, never the kept file:
   * keepStaged() copies what arrived, so a later PUT to the same URL changes nothing kept.
   */
  uploadUrl(collectionId: string, documentId: string, size: number, expiresInS: number): string {
    return presignPut(this.storage, this.stagedKeyOf(collectionId, documentId), { contentLength: size, expiresInS });
  }

  /** Every file clients have put in the staging area and ragd has not taken or removed yet. */
  async listStaged(): Promise<StagedFile[]> {
    const prefix = storageKey(this.storage, STAGED_AREA);
    const out: StagedFile[] = [];
    await this.eachPage({ prefix }, (page) => {
      for (const o of page.contents ?? []) {
        const [collectionId, documentId, ...rest] = o.key.slice(prefix.length).split("/");
        if (rest.length || !isStoreId(collectionId ?? "") || !isStoreId(documentId ?? "")) continue;
        out.push({ collectionId: collectionId!, documentId: documentId!, size: o.size ?? 0 });
      }
    });
    return out;
  }

  /**
   * Copies a staged file to the document's kept file: read once (one version of it,
   * whatever PUTs follow), stored and hashed as save() does. The staged object stays
   * until removeStaged(), so a copy whose taking fails can be made again.
   */
  keepStaged(collectionId: string, documentId: string, limit: number): Promise<SavedFile> {
    const staged = this.s3.file(this.stagedKeyOf(collectionId, documentId));
    return this.save(collectionId, documentId, staged.stream(), limit);
  }

  async removeStaged(collectionId: string, documentId: string): Promise<void> {
    await this.s3.delete(this.stagedKeyOf(collectionId, documentId));
  }

  async remove(collectionId: string, documentId: string): Promise<void> {
    await this.s3.delete(this.keyOf(collectionId, documentId));
  }

  async removeCollection(collectionId: string): Promise<void> {
    checkIds(collectionId);
    // Deleting while listing would shift the pages: list first, then delete.
    const keys: string[] = [];
    for (const area of ["files/", STAGED_AREA]) {
      const prefix = storageKey(this.storage, `${area}${collectionId}/`);
      await this.eachPage({ prefix }, (page) => keys.push(...(page.contents ?? []).map((o) => o.key)));
    }
    for (const key of keys) await this.s3.delete(key);
  }

  /** A bucket has no directories: nothing is left behind. */
  async removeCollectionIfEmpty(_collectionId: string): Promise<void> {}

  async listCollections(): Promise<string[]> {
    const prefix = storageKey(this.storage, "files/");
    const ids: string[] = [];
    await this.eachPage({ prefix, delimiter: "/" }, (page) => {
      for (const p of page.commonPrefixes ?? []) ids.push(p.prefix.slice(prefix.length).replace(/\/$/, ""));
    });
    return ids.filter(isStoreId);
  }

  async listFiles(collectionId: string, modifiedBefore?: number): Promise<string[]> {
    checkIds(collectionId);
    const prefix = storageKey(this.storage, `files/${collectionId}/`);
    // An object without a date is taken as written now: it is listed only without the bound.
    const early = (o: { lastModified?: string }) =>
      modifiedBefore === undefined || Date.parse(o.lastModified ?? "") < modifiedBefore;
    const names: string[] = [];
    await this.eachPage({ prefix }, (page) =>
      names.push(...(page.contents ?? []).filter(early).map((o) => o.key.slice(prefix.length))),
    );
    return names.filter(isStoreId);
  }

  /** Nothing is staged locally; an upload a crash left open is for abortStaleUploads (orphans.ts). */
  sweepTemp(): void {}

  private async eachPage(
    opts: { prefix: string; delimiter?: string },
    fn: (page: Awaited<ReturnType<S3Client["list"]>>) => void,
  ): Promise<void> {
    let continuationToken: string | undefined;
    do {
      const page = await this.s3.list({ ...opts, continuationToken });
      fn(page);
      continuationToken = page.isTruncated ? page.nextContinuationToken : undefined;
    } while (continuationToken);
  }
}

/**
 * One object's bytes on their way: buffered up to a part, then sent as parts of a
 * multipart upload started with the first full part; `finish` sends what is left.
 */
class StreamingUpload {
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  private uploadId: string | null = null;
  private etags: string[] = [];

  constructor(
    private readonly storage: ObjectStorage,
    private readonly key: string,
    private readonly partBytes: number,
    private readonly putWhole: (bytes: Uint8Array) => Promise<unknown>,
  ) {}

  async write(bytes: Uint8Array): Promise<void> {
    this.held.push(bytes);
    this.heldBytes += bytes.byteLength;
    while (this.heldBytes >= this.partBytes) await this.sendPart(this.take(this.partBytes));
  }

  async finish(): Promise<void> {
    const rest = this.take(this.heldBytes);
    if (this.uploadId === null) {
      await this.putWhole(rest);
      return;
    }
    if (rest.byteLength > 0 || this.etags.length === 0) await this.sendPart(rest);
    await completeUpload(this.storage, this.key, this.uploadId, this.etags);
    this.uploadId = null;
  }

  /** Leaves no trace of the upload; quiet, as it runs while another error is on its way. */
  async abort(): Promise<void> {
    this.held = [];
    this.heldBytes = 0;
    const id = this.uploadId;
    this.uploadId = null;
    if (id !== null) await abortUpload(this.storage, this.key, id).catch(() => {});
  }

  private async sendPart(bytes: Uint8Array): Promise<void> {
    this.uploadId ??= await createUpload(this.storage, this.key);
    this.etags.push(await uploadPart(this.storage, this.key, this.uploadId, this.etags.length + 1, bytes));
  }

  /** The first `n` held bytes as one buffer; the rest stay held. */
  private take(n: number): Uint8Array {
    const all = Buffer.concat(this.held, this.heldBytes);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.held = rest.byteLength > 0 ? [rest] : [];
    this.heldBytes = rest.byteLength;
    return out;
  }
}

/** Bun's S3 client on the store's bucket, signing with the configured keys (required: see the constructor). */
export function bucketClient(storage: ObjectStorage): S3Client {
  return new S3Client({
    bucket: storage.bucket,
    region: storage.region,
    endpoint: storage.endpoint ?? undefined,
    accessKeyId: storage.accessKeyId ?? undefined,
    secretAccessKey: storage.secretAccessKey ?? undefined,
  });
}
