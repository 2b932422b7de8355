/**
 * Progress of running documents, written with the next group commit: a burst of
 * progress events from many jobs costs one write per document, not one per event.
 * A `source.processing` event with the progress is recorded at most every
 * PROGRESS_EVENT_MS per document, and not before a document has run that long: a
 * small source that is done within it adds no progress event at all.
 */
import type { WriteBatch } from "../../db/batch";
import { setDocumentProgress } from "../../db/repo/documents";
import type { Logger } from "../../log";
import { recordSourceEvent } from "../events";

export const PROGRESS_EVENT_MS = 2000;

export class ProgressBuffer {
  private readonly latest = new Map<string, { done: number; total: number; unit?: "pages" }>();
  /** When each running document last had a progress event (or first reported progress). */
  private readonly announced = new Map<string, number>();
  private queued = false;

  constructor(
    private readonly writes: WriteBatch,
    private readonly log: Logger,
  ) {}

  /** `unit` "pages": pages recognised by OCR; otherwise chunks embedded. */
  set(documentId: string, done: number, total: number, unit?: "pages"): void {
    this.latest.set(documentId, unit ? { done, total, unit } : { done, total });
    if (!this.announced.has(documentId)) this.announced.set(documentId, Date.now());
    if (this.queued) return;
    this.queued = true;
    void this.writes
      .run(async (t) => {
        this.queued = false;
        const now = Date.now();
        // Taken whole first: what is set while these are written goes with the next write.
        const latest = [...this.latest];
        this.latest.clear();
        for (const [id, p] of latest) {
          await setDocumentProgress(t, id, p.done, p.total, p.unit ?? "chunks");
          if (now - (this.announced.get(id) ?? now) < PROGRESS_EVENT_MS) continue;
          this.announced.set(id, now);
          await recordSourceEvent(t, "source.processing", id, { progress: p }, now);
        }
      })
      .catch((err) => this.log.warn("could not record progress", { error: err }))
      .finally(() => (this.queued = false));
  }

  /** Forgets a document's unwritten progress (its outcome is being recorded). */
  drop(documentId: string): void {
    this.latest.delete(documentId);
    this.announced.delete(documentId);
  }
}
