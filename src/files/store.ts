/**
 * Uploaded files on local disk under <dataDir>/files. Names on disk are the
 * document ids only (never a user-supplied name), so no path trick can escape.
 * Bytes stream to a temporary file while being counted and are renamed into
 * place only when complete.
 */
import { mkdirSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname, join } from "node:path";
import { DiskFullError, isOutOfSpace } from "../tools/disk";
import { FileError } from "./errors";

const ID = /^[0-9a-f-]{36}$/;

export class FileStore {
  readonly dir: string;
  /** Removals waiting while backups link the stored files (holdRemovals), and how many hold them. */
  private held: (() => void)[] = [];
  private holds = 0;

  constructor(private readonly dataDir: string) {
    this.dir = join(dataDir, "files");
    mkdirSync(join(this.dir, ".tmp"), { recursive: true });
  }

  /** Path of a document's stored file: files/<collection id>/<document id>. */
  pathOf(collectionId: string, documentId: string): string {
    if (!ID.test(collectionId) || !ID.test(documentId)) throw new Error("bad id");
    return join(this.dir, collectionId, documentId);
  }

  /**
   * Streams `body` to disk; fails with a FileError "too_large" (and keeps nothing) past `limit` bytes,
   * and with a DiskFullError (keeping nothing either) when the disk fills up.
   * Returns the byte count; the file is in place when this resolves.
   */
  async save(
    collectionId: string,
    documentId: string,
    body: ReadableStream<Uint8Array> | null,
    limit: number,
  ): Promise<number> {
    return (await this.saveHashed(collectionId, documentId, body, limit)).size;
  }

  /** As save(), and the SHA-256 (hex) of the bytes, to recognise the same file sent again. */
  async saveHashed(
    collectionId: string,
    documentId: string,
    body: ReadableStream<Uint8Array> | null,
    limit: number,
  ): Promise<{ size: number; hash: string }> {
    const final = this.pathOf(collectionId, documentId);
    const received = await this.receiveTemp(body, limit, documentId);
    mkdirSync(dirname(final), { recursive: true });
    renameSync(received.path, final);
    return { size: received.size, hash: received.hash };
  }

  /**
   * Streams `body` into a new file under files/.tmp, hashing it as it goes; the caller
   * moves it into place (or removes it). Fails as save() does, keeping nothing.
   */
  async receiveTemp(
    body: ReadableStream<Uint8Array> | null,
    limit: number,
    tag = "upload",
  ): Promise<{ path: string; size: number; hash: string }> {
    const hasher = new Bun.CryptoHasher("sha256");
    const tmp = join(this.dir, ".tmp", `${tag}-${crypto.randomUUID()}`);
    const fh = await open(tmp, "w", 0o600).catch((err) => {
      throw isOutOfSpace(err) ? new DiskFullError(this.dataDir) : err;
    });
    let total = 0;
    try {
      if (body) {
        for await (const part of body as unknown as AsyncIterable<Uint8Array>) {
          total += part.byteLength;
          if (total > limit) throw new FileError("too_large", `the file is larger than ${limit} bytes`);
          hasher.update(part);
          await fh.write(part);
        }
      }
      await fh.sync();
      await fh.close();
      return { path: tmp, size: total, hash: hasher.digest("hex") };
    } catch (err) {
      await fh.close().catch(() => {});
      rmSync(tmp, { force: true });
      throw isOutOfSpace(err) ? new DiskFullError(this.dataDir) : err;
    }
  }

  /** Removes a document's file; missing files are fine. */
  remove(collectionId: string, documentId: string): void {
    const path = this.pathOf(collectionId, documentId);
    this.removing(() => rmSync(path, { force: true }));
  }

  /** Removes every file of a collection. */
  removeCollection(collectionId: string): void {
    if (!ID.test(collectionId)) throw new Error("bad id");
    this.removing(() => rmSync(join(this.dir, collectionId), { recursive: true, force: true }));
  }

  /**
   * Holds removals until the returned function is called, which runs them: a backup's
   * snapshot links the files that its copy of the database names (backup/snapshot.ts).
   */
  holdRemovals(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds > 0) return;
      const waiting = this.held;
      this.held = [];
      for (const run of waiting) run();
    };
  }

  private removing(run: () => void): void {
    if (this.holds > 0) this.held.push(run);
    else run();
  }

  /** Removes a collection's directory when nothing is left in it. */
  removeCollectionIfEmpty(collectionId: string): void {
    if (!ID.test(collectionId)) return;
    try {
      rmdirSync(join(this.dir, collectionId));
    } catch {
      // not empty, or already gone
    }
  }

  /** Clears half-written uploads left by a crash. */
  sweepTemp(): void {
    rmSync(join(this.dir, ".tmp"), { recursive: true, force: true });
    mkdirSync(join(this.dir, ".tmp"), { recursive: true });
  }
}
