/**
 * The ingestion engine's own refusal. It knows nothing of HTTP: src/http/errors.ts
 * answers it with 429 and a Retry-After.
 */

/** The queue already holds QUEUE_LIMIT tasks: new work is refused rather than queued without bound. */
export class QueueFullError extends Error {
  constructor() {
    super("the ingestion queue is full; try again in a minute");
    this.name = "QueueFullError";
  }
}

/** An upsert the stored document cannot take (docs/API.md, Documents API); 400 naming `field`. */
export class UpsertRefused extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = "UpsertRefused";
  }
}
