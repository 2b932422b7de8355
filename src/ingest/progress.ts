/**
 * Progress of running documents, written with the next group commit: a burst of
 * progress events from many jobs costs one write per document, not one per event.
 */
import type { WriteBatch } from "../db/batch";
import { setDocumentProgress } from "../db/queries/documents";
import type { Logger } from "../log";

export class ProgressBuffer {
  private readonly latest = new Map<string, { done: number; total: number }>();
  private queued = false;

  constructor(
    private readonly writes: WriteBatch,
    private readonly log: Logger,
  ) {}

  set(documentId: string, done: number, total: number): void {
    this.latest.set(documentId, { done, total });
    if (this.queued) return;
    this.queued = true;
    this.writes
      .run((t) => {
        this.queued = false;
        for (const [id, p] of this.latest) setDocumentProgress(t, id, p.done, p.total);
        this.latest.clear();
      })
      .catch((err) => this.log.warn("could not record progress", { error: err }))
      .finally(() => (this.queued = false));
  }

  /** Forgets a document's unwritten progress (its outcome is being recorded). */
  drop(documentId: string): void {
    this.latest.delete(documentId);
  }
}
