/**
 * Uploaded files on local disk under <dataDir>/files (the FileStore of store.ts).
 * Names on disk are the document ids only (never a user-supplied name), so no path
 * trick can escape. Bytes stream to a temporary file while being counted and are
 * renamed into place only when complete. Beyond the interface, what only a disk can
 * do: paths (pathOf), staging a file for a later move (receiveTemp), and holding
 * removals while a backup links the files (holdRemovals).
 */
import { mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname, join } from "node:path";
import { DiskFullError, isOutOfSpace } from "../tools/disk";
import { checkIds, copyLimited, type FileStore, isStoreId, type SavedFile } from "./store";

export class DiskFileStore implements FileStore {
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
    checkIds(collectionId, documentId);
    return join(this.dir, collectionId, documentId);
  }

  readLocation(collectionId: string, documentId: string): string {
    return this.pathOf(collectionId, documentId);
  }

  /**
   * Streams `body` to disk; fails with a FileError "too_large" (and keeps nothing) past `limit` bytes,
   * and with a DiskFullError (keeping nothing either) when the disk fills up.
   * The file is in place when this resolves.
   */
  async save(
    collectionId: string,
    documentId: string,
    body: ReadableStream<Uint8Array> | null,
    limit: number,
  ): Promise<SavedFile> {
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
    const tmp = join(this.dir, ".tmp", `${tag}-${crypto.randomUUID()}`);
    const fh = await open(tmp, "w", 0o600).catch((err) => {
      throw isOutOfSpace(err) ? new DiskFullError(this.dataDir) : err;
    });
    try {
      const saved = await copyLimited(body, limit, (part) => fh.write(part));
      await fh.sync();
      await fh.close();
      return { path: tmp, ...saved };
    } catch (err) {
      await fh.close().catch(() => {});
      rmSync(tmp, { force: true });
      throw isOutOfSpace(err) ? new DiskFullError(this.dataDir) : err;
    }
  }

  // The removals below do their work before returning (they are async only for the
  // interface's sake), so a hold taken right after one sees it done.

  /** Removes a document's file; missing files are fine. */
  async remove(collectionId: string, documentId: string): Promise<void> {
    const path = this.pathOf(collectionId, documentId);
    this.removing(() => rmSync(path, { force: true }));
  }

  /** Removes every file of a collection. */
  async removeCollection(collectionId: string): Promise<void> {
    checkIds(collectionId);
    this.removing(() => rmSync(join(this.dir, collectionId), { recursive: true, force: true }));
  }

  async listCollections(): Promise<string[]> {
    try {
      return readdirSync(this.dir).filter(isStoreId);
    } catch {
      return [];
    }
  }

  async listFiles(collectionId: string, modifiedBefore?: number): Promise<string[]> {
    checkIds(collectionId);
    const dir = join(this.dir, collectionId);
    let names: string[];
    try {
      names = readdirSync(dir).filter(isStoreId);
    } catch {
      return [];
    }
    if (modifiedBefore === undefined) return names;
    // A file removed while the directory was read is not listed.
    return names.filter(
      (name) => (statSync(join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? modifiedBefore) < modifiedBefore,
    );
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
  async removeCollectionIfEmpty(collectionId: string): Promise<void> {
    if (!isStoreId(collectionId)) return;
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
