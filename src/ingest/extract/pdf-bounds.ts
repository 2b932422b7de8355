/**
 * What reading a PDF may cost (docs/API.md, "What text is indexed"): pages, time and the
 * job's cancellation. pdf.js works asynchronously in this thread, so a step that loses
 * its race is stopped by destroying the document (pdf.js ends its tasks at their next check).
 */
import { ExtractionError } from "./errors";

/**
 * Most pages a PDF may have. A long book has one to two thousand; a PDF's pages are read
 * one at a time, but pdf.js keeps a little of each until the end (about 0.1 MB an empty page).
 */
export const MAX_PDF_PAGES = 5_000;

/**
 * Time pdf.js may spend on one PDF, OCR itself aside (which has its page timeout): a
 * 5,000-page book's text layer takes well under a minute.
 */
export const PDF_READ_MS = 5 * 60_000;

/** Refuses a PDF of more pages than MAX_PDF_PAGES, before any page is read. */
export function checkPages(pages: number): void {
  if (pages > MAX_PDF_PAGES)
    throw new ExtractionError(`pdf too large: ${pages} pages (limit ${MAX_PDF_PAGES}); split it into smaller files`);
}

const span = (ms: number) => (ms >= 60_000 ? `${Math.round(ms / 60_000)} minutes` : `${ms / 1000} seconds`);

/** The error a cancelled job stops with; nobody sees it (the job is no longer reported). */
export const cancelled = () => new ExtractionError("cancelled");

/**
 * The time budget of one PDF, spent only while pdf.js works (not while OCR recognises a
 * page), and the job's cancellation: either ends the step being awaited.
 */
export class PdfBudget {
  private spentMs = 0;

  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly limitMs = PDF_READ_MS,
  ) {}

  /**
   * Awaits one piece of pdf.js work within what is left of the budget. pdf.js passes its
   * messages as promises: its work never lets the thread's timers or messages in (a
   * job's cancel among them: 4,000 pages read on for 8 s past it), so each step first
   * yields to them, then starts `work`.
   */
  async step<T>(work: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const { signal } = this;
    if (signal?.aborted) throw cancelled();
    if (this.spentMs >= this.limitMs) throw this.late();
    const started = performance.now();
    let timer: Timer | undefined;
    let onAbort = () => {};
    const stop = new Promise<never>((_, reject) => {
      onAbort = () => reject(cancelled());
      signal?.addEventListener("abort", onAbort);
      timer = setTimeout(() => reject(this.late()), this.limitMs - this.spentMs);
    });
    try {
      const running = work();
      // A step that loses its race is abandoned: its later refusal must not end the worker as unhandled.
      running.catch(() => {});
      return await Promise.race([running, stop]);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      this.spentMs += performance.now() - started;
    }
  }

  private late(): ExtractionError {
    return new ExtractionError(`pdf took longer than ${span(this.limitMs)} to read and was stopped`);
  }
}
