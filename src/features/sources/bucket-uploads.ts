/**
 * File sources on object storage (docs/ARCHITECTURE.md, Object storage): the client PUTs
 * its file to the store itself, through a presigned URL bound to the declared size, and
 * ragd notices the finished upload without another call. Every source it handed such a
 * URL to is watched: a HEAD of its key every couple of seconds until the object is
 * there, then the same completion as an upload through ragd (SourceService.finishUpload).
 *
 * A source stays watched until its grant has run out and an hour more (a PUT started
 * in time may run long), as files/orphans.ts counts; after that it keeps waiting as on
 * disk, where an expired URL is refused and the client creates the source again. At
 * start the sources still waiting within that window are watched again.
 */
import type { Db } from "../../db/client";
import { failAwaitingUpload, findDocumentById, listAwaitingUploads } from "../../db/repo/documents";
import type { DocumentRow } from "../../db/schema";
import type { ObjectFileStore } from "../../files/object-store";
import { STALE_UPLOAD_MS } from "../../files/orphans";
import { UPLOAD_TTL_MS } from "../../files/signing";
import type { SavedFile } from "../../files/store";
import { AppError } from "../../http/errors";
import { recordSourceEvent } from "../../ingest/events";
import type { Logger } from "../../log";
import { throttledLogger } from "../../log-throttle";

/** How often the watched keys are looked at: within a few seconds of an upload's end. */
const POLL_MS = 2000;
/** How long after its grant runs out a source is still watched. */
const GRACE_MS = STALE_UPLOAD_MS - UPLOAD_TTL_MS;

interface Watched {
  collectionId: string;
  /** The declared size, which the URL binds; a store that ignores signed headers is checked here. */
  size: number;
  /** Watched until then (ms). */
  until: number;
}

export interface BucketUploadDeps {
  db: Db;
  files: ObjectFileStore;
  log: Logger;
  /**
   * Takes a file that arrived whole (SourceService.finishUpload); throws an AppError when
   * it refuses it, and the source then fails with the reason: no client is there to hear a 409.
   */
  finish: (doc: DocumentRow, saved: SavedFile) => Promise<unknown>;
}

export class BucketUploads {
  private readonly watched = new Map<string, Watched>();
  private readonly quiet: Logger;
  private timer: Timer | null = null;
  private polling: Promise<void> | null = null;

  constructor(private readonly d: BucketUploadDeps) {
    this.quiet = throttledLogger(d.log);
  }

  /** The upload URL of a new file source, until `expires` (ms); the source is watched from now on. */
  grant(row: DocumentRow, expires: number): string {
    this.watch(row, expires);
    const expiresInS = Math.max(1, Math.round((expires - Date.now()) / 1000));
    return this.d.files.uploadUrl(row.collectionId, row.id, row.fileSize!, expiresInS);
  }

  /** Watches the sources still waiting from before a restart, and starts looking. */
  start(): void {
    const since = new Date(Date.now() - STALE_UPLOAD_MS).toISOString();
    for (const row of listAwaitingUploads(this.d.db, since))
      if (row.type === "file" && row.fileSize !== null)
        this.watch(row, new Date(row.createdAt).getTime() + UPLOAD_TTL_MS);
    this.timer = setInterval(() => this.poll(), POLL_MS);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.polling;
  }

  /** One look at every watched key; a look still running is not doubled. */
  poll(): Promise<void> {
    this.polling ??= this.lookAll().finally(() => {
      this.polling = null;
    });
    return this.polling;
  }

  private watch(row: DocumentRow, expires: number): void {
    this.watched.set(row.id, { collectionId: row.collectionId, size: row.fileSize!, until: expires + GRACE_MS });
  }

  private async lookAll(): Promise<void> {
    for (const [id, w] of [...this.watched]) {
      if (this.timer === null) return;
      try {
        await this.look(id, w);
      } catch (err) {
        this.quiet.warn("could not look for a file uploaded to the object store", { error: String(err) });
      }
      if (Date.now() > w.until) this.watched.delete(id);
    }
  }

  private async look(id: string, w: Watched): Promise<void> {
    const doc = findDocumentById(this.d.db, id);
    if (doc && doc.status !== "awaiting_upload") {
      this.watched.delete(id);
      return;
    }
    const size = await this.d.files.sizeOf(w.collectionId, id);
    if (size === null) return;
    // Deleted while its grant still runs: what arrives for it is not kept.
    if (!doc) return this.d.files.remove(w.collectionId, id);
    if (size !== w.size) {
      // A store that ignored the signed Content-Length: the source keeps waiting for the right file.
      await this.d.files.remove(w.collectionId, id);
      this.d.log.warn("an upload of the wrong size was removed", { sourceId: id, declared: w.size, size });
      return;
    }
    const hash = await this.d.files.hashOf(w.collectionId, id);
    try {
      await this.d.finish(doc, { size, hash });
    } catch (err) {
      // Refused (the same file is here already): the client hears it from the source's status.
      if (!(err instanceof AppError)) throw err;
      this.refuse(id, err.message);
    }
    this.watched.delete(id);
  }

  private refuse(id: string, message: string): void {
    const now = Date.now();
    this.d.db.transaction((t) => {
      if (failAwaitingUpload(t as unknown as Db, id, message, new Date(now).toISOString()))
        recordSourceEvent(t as unknown as Db, "source.failed", id, { error: message }, now);
    });
  }
}
