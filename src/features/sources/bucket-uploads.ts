/**
 * File sources on object storage (docs/ARCHITECTURE.md, Object storage): the client PUTs
 * its file to the store itself, through a presigned URL bound to the declared size, and
 * ragd notices the finished upload without another call. The URL writes a staged key
 * (ObjectFileStore.uploadUrl); every couple of seconds one listing of the staging area
 * finds what arrived, and the database says what each object is: the file of a source
 * awaiting it, with the declared size, is copied to the file ragd keeps and taken as an
 * upload through ragd would be (SourceService.finishUpload); anything else (a second PUT
 * after ragd took the first, a source deleted meanwhile, another size) is removed. A PUT
 * to the URL can therefore never change a file ragd has taken.
 *
 * The staging area is listed while some grant may still bring a file: until the last
 * grant has run out and an hour more (a PUT started in time may run long), as
 * files/orphans.ts counts; after that a source keeps waiting as on disk, where an
 * expired URL is refused and the client creates the source again. At start it is listed
 * once, and on while the sources still waiting from before are within that window; and
 * hourly whatever the grants, for what a PUT that outlasted its window left.
 *
 * Replicas: each also lists while the database has a source waiting within that window
 * (whichever replica granted it, or one since stopped), and one replica lists at a time
 * (the store's `exclusive`): two that copied the same object would both take it, and the
 * loser's refusal would remove the kept file.
 */
import { failAwaitingUpload, findDocumentById, listAwaitingUploads } from "../../db/repo/documents";
import type { DocumentRow } from "../../db/schema";
import type { Store } from "../../db/store";
import type { ObjectFileStore, StagedFile } from "../../files/object-store";
import { STALE_UPLOAD_MS } from "../../files/orphans";
import { UPLOAD_TTL_MS } from "../../files/signing";
import type { SavedFile } from "../../files/store";
import { appErrorOf } from "../../http/errors";
import { recordSourceEvent } from "../../ingest/events";
import type { Logger } from "../../log";
import { throttledLogger } from "../../log-throttle";

/** Outside grants, what a straggling PUT may still leave is looked for this often. */
const SWEEP_MS = 3600_000;
/** How long after its grant runs out an upload may still arrive. */
const GRACE_MS = STALE_UPLOAD_MS - UPLOAD_TTL_MS;

export interface BucketUploadDeps {
  db: Store;
  files: ObjectFileStore;
  log: Logger;
  /**
   * Takes a file that arrived whole (SourceService.finishUpload); throws an AppError (or a domain error) when
   * it refuses it, and the source then fails with the reason: no client is there to hear a 409.
   */
  finish: (doc: DocumentRow, saved: SavedFile) => Promise<unknown>;
  /** One of several replicas: grants made by others are listed for too. */
  replica?: boolean;
}

export class BucketUploads {
  /** The staging area is listed until then (ms): the last grant's end, and the grace after it. */
  private listUntil = 0;
  /** When the last listing began (ms). */
  private lastPoll = 0;
  private readonly quiet: Logger;
  private stopped = true;
  private polling: Promise<void> | null = null;

  constructor(private readonly d: BucketUploadDeps) {
    this.quiet = throttledLogger(d.log);
  }

  /** The upload URL of a new file source, until `expires` (ms); the staging area is listed until then. */
  grant(row: DocumentRow, expires: number): string {
    this.listUntil = Math.max(this.listUntil, expires + GRACE_MS);
    const expiresInS = Math.max(1, Math.round((expires - Date.now()) / 1000));
    return this.d.files.uploadUrl(row.collectionId, row.id, row.fileSize!, expiresInS);
  }

  /** Lists the staging area once now, and on while grants from before a restart may still bring files. */
  async start(): Promise<void> {
    const since = new Date(Date.now() - STALE_UPLOAD_MS).toISOString();
    for (const row of await listAwaitingUploads(this.d.db.reader, since))
      this.listUntil = Math.max(this.listUntil, new Date(row.createdAt).getTime() + STALE_UPLOAD_MS);
    this.stopped = false;
    void this.poll();
  }

  /**
   * The periodic look (services.ts runs it every two seconds: an upload is noticed within
   * a few seconds of its end): a listing when one is due.
   */
  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return this.due().then(
      (due) => (due ? this.poll() : undefined),
      (err) => this.quiet.warn("could not read the sources awaiting uploads", { error: String(err) }),
    );
  }

  /** Whether to list now: a grant may still bring a file, or the hourly sweep is due. */
  private async due(): Promise<boolean> {
    const now = Date.now();
    if (now <= this.listUntil || now - this.lastPoll >= SWEEP_MS) return true;
    if (!this.d.replica || this.polling !== null) return false;
    const since = new Date(now - STALE_UPLOAD_MS).toISOString();
    return (await listAwaitingUploads(this.d.db.reader, since)).length > 0;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.polling;
  }

  /** One listing of the staging area, each object taken or removed; a look still running is not doubled. */
  poll(): Promise<void> {
    if (this.polling !== null) return this.polling;
    this.lastPoll = Date.now();
    this.polling = this.d.db
      .exclusive("bucket-uploads", () => this.lookAll())
      .catch((err) => this.quiet.warn("could not list the uploads in the object store", { error: String(err) }))
      .finally(() => {
        this.polling = null;
      });
    return this.polling;
  }

  private async lookAll(): Promise<void> {
    for (const staged of await this.d.files.listStaged()) {
      if (this.stopped) return;
      try {
        await this.look(staged);
      } catch (err) {
        this.quiet.warn("could not take a file uploaded to the object store", { error: String(err) });
      }
    }
  }

  private async look({ collectionId, documentId, size }: StagedFile): Promise<void> {
    const doc = await findDocumentById(this.d.db.reader, documentId);
    const waiting = doc?.collectionId === collectionId && doc.type === "file" && doc.status === "awaiting_upload";
    // A source deleted while its grant ran, or a PUT after ragd took the file: what came is not kept.
    if (!doc || !waiting) return this.d.files.removeStaged(collectionId, documentId);
    if (size !== doc.fileSize) return this.wrongSize(doc, size);
    // Copied before it is taken, and removed after: a failure in between leaves it for the next look.
    const saved = await this.d.files.keepStaged(collectionId, documentId, size);
    // Replaced by another size after the listing: the copy goes too.
    if (saved.size !== doc.fileSize) {
      await this.d.files.remove(collectionId, documentId);
      return this.wrongSize(doc, saved.size);
    }
    try {
      await this.d.finish(doc, saved);
    } catch (err) {
      // Refused (the same file is here already): the client hears it from the source's status.
      const refused = appErrorOf(err);
      if (!refused) throw err;
      await this.refuse(doc.id, refused.message);
    }
    await this.d.files.removeStaged(collectionId, documentId);
  }

  /** A store that ignored the signed Content-Length: the object goes, the source keeps waiting for the right file. */
  private async wrongSize(doc: DocumentRow, size: number): Promise<void> {
    await this.d.files.removeStaged(doc.collectionId, doc.id);
    this.d.log.warn("an upload of the wrong size was removed", { sourceId: doc.id, declared: doc.fileSize, size });
  }

  private async refuse(id: string, message: string): Promise<void> {
    const now = Date.now();
    await this.d.db.atomically(async (tx) => {
      if (await failAwaitingUpload(tx, id, message, new Date(now).toISOString()))
        await recordSourceEvent(tx, "source.failed", id, { error: message }, now);
    });
  }
}
