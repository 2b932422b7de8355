/**
 * The webhook deliverer: a timer (and a wake-up when deliveries are queued) reads
 * the outbox for due deliveries and POSTs each under the fetch rules, signed with
 * the webhook's secret. Every attempt is recorded, in its own row and on the delivery's; a failure or non-2xx
 * answer is tried again after the next delay of the schedule, and after the last
 * one the delivery is failed. The rows are the stored tasks: a restart carries on
 * with whatever is pending, and `stop` waits for the attempts in flight.
 */
import { createHmac } from "node:crypto";
import type { Config } from "../../config";
import { dueDeliveries, recordAttempt } from "../../db/repo/events";
import type { Webhook, WebhookDelivery } from "../../db/schema";
import type { Store } from "../../db/store";
import { notifier } from "../../ingest/events";
import { FetchError, safePost } from "../../ingest/fetch";
import type { Logger } from "../../log";
import { version } from "../../version";

/** At most this many deliveries are in flight at once. */
const CONCURRENCY = 8;
/** Each attempt may take this long, connection and answer together. */
const ATTEMPT_TIMEOUT_MS = 10_000;
const TICK_MS = 1000;

/** The hex HMAC-SHA256 of `body` with `secret`: X-Ragd-Signature is `sha256=` and this. */
export const signature = (secret: string, body: string) => createHmac("sha256", secret).update(body).digest("hex");

export interface DelivererDeps {
  db: Store;
  config: Pick<Config, "fetchAllow" | "fetchDeny" | "webhookRetryDelaysMs">;
  log: Logger;
}

export class WebhookDeliverer {
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: Timer | null = null;
  private unsubscribe = () => {};
  private stopped = false;
  /** Outbox reads under way. */
  private reads = 0;
  /** Counts the attempts that ended while a read was under way; `ended` maps each delivery to its count. */
  private seq = 0;
  /** Deliveries whose attempt ended while a read was under way: that read may still show them due. */
  private readonly ended = new Map<string, number>();

  constructor(private readonly d: DelivererDeps) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.unsubscribe = notifier.subscribeOutbox(() => this.tick());
    this.tick();
  }

  /** Stops taking deliveries and waits for those in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe();
    await Promise.allSettled(this.inFlight.values());
  }

  /**
   * Starts the due deliveries there is room for. Each tick reads the outbox on its own, so
   * a wake-up during another's read (after a commit that read may not see) reads again.
   */
  tick(): void {
    if (this.stopped || this.inFlight.size >= CONCURRENCY) return;
    const since = this.seq;
    this.reads++;
    void dueDeliveries(this.d.db.reader, new Date().toISOString(), CONCURRENCY + this.inFlight.size)
      .then(
        (due) => this.startAll(due, since),
        (err) => this.d.log.warn("could not read the webhook outbox", { error: err }),
      )
      .finally(() => {
        if (--this.reads === 0) this.ended.clear();
      });
  }

  /** Starts what a read of the outbox begun at `since` (a value of `seq`) found, as room allows. */
  private startAll(due: { delivery: WebhookDelivery; webhook: Webhook }[], since: number): void {
    // Stopped while the outbox was read: stop() waits only for what was in flight then.
    if (this.stopped) return;
    for (const { delivery, webhook } of due) {
      if (this.inFlight.size >= CONCURRENCY) break;
      if (this.inFlight.has(delivery.id)) continue;
      // Its attempt ended after this read began: the row may be from before the attempt was recorded.
      if ((this.ended.get(delivery.id) ?? 0) > since) continue;
      const attempt = this.attempt(delivery, webhook)
        .catch((err) => this.d.log.error("could not record a webhook delivery", { error: err, id: delivery.id }))
        .finally(() => {
          this.inFlight.delete(delivery.id);
          if (this.reads > 0) this.ended.set(delivery.id, ++this.seq);
          this.tick();
        });
      this.inFlight.set(delivery.id, attempt);
    }
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
    const headers = {
      "content-type": "application/json",
      "user-agent": `ragd/${version}`,
      "x-ragd-event": d.eventType,
      "x-ragd-delivery": d.id,
      "x-ragd-signature": `sha256=${signature(w.secret, d.payload)}`,
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
