/**
 * The ingestion engine's own refusal. It knows nothing of HTTP: src/http/errors.ts
 * answers it with 429 and a Retry-After.
 */

/**
 * New work is refused rather than queued without bound: the queue holds QUEUE_LIMIT tasks,
 * or queries wait while a backlog is in hand (tasks/queue-room.ts). `retryAfterS` is the wait asked for.
 */
export class QueueFullError extends Error {
  constructor(
    message = "the ingestion queue is full; try again in a minute",
    readonly retryAfterS = 60,
  ) {
    super(message);
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
