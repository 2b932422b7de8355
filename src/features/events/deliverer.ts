/**
 * The webhook deliverer: a timer (and a wake-up when deliveries are queued) reads
 * the outbox for due deliveries and POSTs each under the fetch rules, signed with
 * the webhook's secret (the body alone, and the attempt's time with the body, against
 * replays: docs/API.md, "Verifying a signature"). Each attempt first claims its delivery (claimDelivery), so of
 * several processes on one database only one POSTs it. Every attempt is recorded, in
 * its own row and on the delivery's; a failure or non-2xx answer is tried again after
 * the next delay of the schedule, and after the last one the delivery is failed. The
 * rows are the stored tasks: a restart carries on with whatever is pending (a delivery
 * cut short is due again when its claim runs out), and `stop` waits for the attempts in
 * flight.
 */
import { createHmac } from "node:crypto";
import type { Config } from "../../config";
import { claimDelivery, dueDeliveries, recordAttempt } from "../../db/repo/events";
import type { Webhook, WebhookDelivery } from "../../db/schema";
import type { Store } from "../../db/store";
import { notifier } from "../../ingest/events";
import { FetchError, safePost } from "../../ingest/fetch";
import type { Logger } from "../../log";

/** At most this many deliveries are in flight at once. */
const CONCURRENCY = 8;
/** Each attempt may take this long, connection and answer together. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** A claim outlasts the attempt by this much, for recording its outcome. */
const CLAIM_MARGIN_MS = 30_000;

/** The hex HMAC-SHA256 of `body` with `secret`: X-Ragd-Signature is `sha256=` and this. */
export const signature = (secret: string, body: string) => createHmac("sha256", secret).update(body).digest("hex");

/**
 * The signing headers of one attempt. X-Ragd-Signature (the body alone, as the contract
 * has it) stays for receivers written against it; X-Ragd-Signature-V2 signs
 * `<X-Ragd-Timestamp>.<body>`, so a receiver that checks the time refuses a captured
 * delivery replayed later. Each attempt signs its own time: a retry 40 min on still passes.
 */
export function signingHeaders(secret: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  return {
    "x-ragd-timestamp": timestamp,
    "x-ragd-signature": `sha256=${signature(secret, body)}`,
    "x-ragd-signature-v2": `sha256=${signature(secret, `${timestamp}.${body}`)}`,
  };
}

export interface DelivererDeps {
  db: Store;
  config: Pick<Config, "fetchAllow" | "fetchDeny" | "webhookRetryDelaysMs">;
  log: Logger;
}

export class WebhookDeliverer {
  private readonly inFlight = new Map<string, Promise<void>>();
  private unsubscribe = () => {};
  private stopped = false;

  constructor(private readonly d: DelivererDeps) {}

  /** Wakes on every queued delivery, and looks once now; services.ts runs tick() every second besides. */
  start(): void {
    this.unsubscribe = notifier.subscribeOutbox(() => this.tick());
    this.tick();
  }

  /** Stops taking deliveries and waits for those in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe();
    await Promise.allSettled(this.inFlight.values());
  }

  /**
   * Starts the due deliveries there is room for. Each tick reads the outbox on its own, so
   * a wake-up during another's read (after a commit that read may not see) reads again; a
   * read from before an attempt was recorded is harmless, as its claim then fails.
   */
  tick(): void {
    if (this.stopped || this.inFlight.size >= CONCURRENCY) return;
    void dueDeliveries(this.d.db.reader, new Date().toISOString(), CONCURRENCY + this.inFlight.size).then(
      (due) => this.startAll(due),
      (err) => this.d.log.warn("could not read the webhook outbox", { error: err }),
    );
  }

  /** Starts what a read of the outbox found, as room allows: each one claimed, then tried. */
  private startAll(due: { delivery: WebhookDelivery; webhook: Webhook }[]): void {
    // Stopped while the outbox was read: stop() waits only for what was in flight then.
    if (this.stopped) return;
    for (const { delivery, webhook } of due) {
      if (this.inFlight.size >= CONCURRENCY) break;
      if (this.inFlight.has(delivery.id)) continue;
      // After an error the timer's tick tries again: one at once could spin on a failing
      // database, each read and claim answered without the event loop turning.
      let failed = false;
      const attempt = this.claimed(delivery, webhook)
        .catch((err) => {
          failed = true;
          this.d.log.error("could not claim or record a webhook delivery", { error: err, id: delivery.id });
        })
        .finally(() => {
          this.inFlight.delete(delivery.id);
          if (!failed) this.tick();
        });
      this.inFlight.set(delivery.id, attempt);
    }
  }

  /**
   * Claims the delivery as read, then attempts it; skips it when the claim fails (another
   * process took it, or the row changed since the read). The claim holds it until the
   * attempt's time is up and then some, so only a process that died mid-attempt lets
   * another try it again.
   */
  private async claimed(d: WebhookDelivery, w: Webhook): Promise<void> {
    if (d.nextAttemptAt === null) return;
    const seen = d.nextAttemptAt;
    const took = await this.d.db.atomically((tx) => {
      const now = Date.now();
      const leaseUntil = new Date(now + ATTEMPT_TIMEOUT_MS + CLAIM_MARGIN_MS).toISOString();
      return claimDelivery(tx, d.id, seen, leaseUntil, new Date(now).toISOString());
    });
    if (took) await this.attempt(d, w);
  }

  /** One attempt: POST, then record its outcome and when (if ever) to try again. */
  private async attempt(d: WebhookDelivery, w: Webhook): Promise<void> {
    const started = Date.now();
    const { status, error } = await this.post(d, w);
    const attempts = d.attempts + 1;
    const now = Date.now();
    const delays = this.d.config.webhookRetryDelaysMs;
    const ok = status !== null && status >= 200 && status < 300;
    const last = attempts > delays.length;
    const at = new Date(started).toISOString();
    await this.d.db.atomically((tx) =>
      recordAttempt(
        tx,
        { deliveryId: d.id, attempt: attempts, at, statusCode: status, error, durationMs: now - started },
        {
          attempts,
          lastStatusCode: status,
          lastError: ok ? null : error,
          status: ok ? "delivered" : last ? "failed" : "pending",
          nextAttemptAt: ok || last ? null : new Date(now + delays[attempts - 1]!).toISOString(),
          deliveredAt: ok ? new Date(now).toISOString() : null,
        },
      ),
    );
  }

  private async post(d: WebhookDelivery, w: Webhook): Promise<{ status: number | null; error: string | null }> {
    // User-Agent is the fetcher's own (ragd/<version>), as for every request ragd makes.
    const headers = {
      "content-type": "application/json",
      "x-ragd-event": d.eventType,
      "x-ragd-delivery": d.id,
      ...signingHeaders(w.secret, d.payload),
    };
    try {
      const rules = { allow: this.d.config.fetchAllow, deny: this.d.config.fetchDeny, timeoutMs: ATTEMPT_TIMEOUT_MS };
      const { status } = await safePost(w.url, d.payload, headers, rules);
      return { status, error: status >= 200 && status < 300 ? null : `the receiver answered ${status}` };
    } catch (err) {
      return { status: null, error: err instanceof FetchError ? err.message : String(err) };
    }
  }
}
