/**
 * The uploaded files of documents, wherever they are kept: on local disk under
 * <dataDir>/files (disk-store.ts, the default) or in an S3-compatible bucket under
 * <prefix>/files (object-store.ts, with RAGD_STORAGE_URL). A file is named by its
 * collection and document ids only, never by anything a user sent.
 *
 * Where the interface ends: backups (which hard-link the stored files and hold their
 * removal meanwhile) and pipeline export/import (which read and write the files by
 * path) are the disk store's alone, use DiskFileStore directly, and are refused on a
 * bucket; the Documents API's file form stages its file on either (documents/upload.ts).
 * A file's name is its document's id, except a documents-API file in a bucket, which
 * keeps a name of its own that the row's filePath gives (docs/ARCHITECTURE.md, Object
 * storage).
 */

import { FileError } from "./errors";

/** What a saved file came to. */
export interface SavedFile {
  size: number;
  /** SHA-256 of the bytes (hex), to recognise the same file sent again. */
  hash: string;
}

export interface FileStore {
  /**
   * Streams `body` into place as the document's file, hashing it on the way. Past `limit`
   * bytes it fails with a FileError "too_large", and a failure of any kind (the limit,
   * a client that hangs up, a full disk) keeps none of the new bytes; a file the
   * document had before stays as it was.
   */
  save(
    collectionId: string,
    documentId: string,
    body: ReadableStream<Uint8Array> | null,
    limit: number,
  ): Promise<SavedFile>;

  /**
   * Where an ingestion worker reads the file (readStoredFile in read.ts): a local path,
   * or a URL of the object valid for a while. Synchronous: jobs are built inside the
   * claim's transaction.
   */
  readLocation(collectionId: string, documentId: string): string;

  /** Removes a document's file; a missing one is fine. */
  remove(collectionId: string, documentId: string): Promise<void>;

  /** Removes every file of a collection. */
  removeCollection(collectionId: string): Promise<void>;

  /** Tidies a collection left with no file (a directory on disk; nothing to do in a bucket). */
  removeCollectionIfEmpty(collectionId: string): Promise<void>;

  /** The ids of the collections that have files: reconciliation removes those of deleted ones. */
  listCollections(): Promise<string[]>;

  /**
   * The names of a collection's stored files (with `modifiedBefore`, a time in ms, only
   * those last written before it): reconciliation removes those no document names.
   */
  listFiles(collectionId: string, modifiedBefore?: number): Promise<string[]>;

  /** Clears half-written uploads left by a crash (on disk; a bucket's are for abortStaleUploads). */
  sweepTemp(): void;
}

const ID = /^[0-9a-f-]{36}$/;

/** Whether `s` has the shape of a ragd id (a UUID), the only names a file store takes. */
export const isStoreId = (s: string): boolean => ID.test(s);

/** Refuses anything but ids, so no name can reach outside the store. */
export function checkIds(...ids: string[]): void {
  for (const id of ids) if (!ID.test(id)) throw new Error("bad id");
}

/**
 * Feeds `body` to `write` part by part, counting and hashing it: the one place the upload
 * limit is enforced, for both stores. Past `limit` bytes it throws a FileError
 * "too_large" before the part that crossed it is written.
 */
export async function copyLimited(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  write: (part: Uint8Array) => Promise<unknown>,
): Promise<SavedFile> {
  const hasher = new Bun.CryptoHasher("sha256");
  let size = 0;
  if (body) {
    for await (const part of body as unknown as AsyncIterable<Uint8Array>) {
      size += part.byteLength;
      if (size > limit) throw new FileError("too_large", `the file is larger than ${limit} bytes`);
      hasher.update(part);
      await write(part);
    }
  }
  return { size, hash: hasher.digest("hex") };
}
