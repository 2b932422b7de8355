/**
 * Webhooks of a pipeline: create (the secret is shown once), list, delete, the
 * delivery log, a test ping and a redelivery. Their URLs obey the fetch rules of url
 * sources (docs/API.md, Events): an IP literal or loopback name they refuse is refused
 * here at once; a host name is checked again, resolved, at every delivery.
 */
import type { Config } from "../../config";
import { findCollectionById } from "../../db/repo/collections";
import type { Db } from "../../db/client";
import {
  attemptsOf,
  deleteWebhook,
  findDelivery,
  findWebhook,
  insertDelivery,
  insertWebhook,
  listDeliveries,
  listWebhooks,
} from "../../db/repo/events";
import type { Webhook, WebhookAttempt, WebhookDelivery } from "../../db/schema";
import type { Store } from "../../db/store";
import { AppError, notFound } from "../../http/errors";
import { notifier, noteWebhook } from "../../ingest/events";
import { literalAddressProblem } from "../../ingest/fetch";
import { randomToken } from "../../tools/crypto";
import { splitCredentials } from "../../tools/url-credentials";

/** A pipeline has at most this many webhooks. */
export const MAX_WEBHOOKS = 20;
/** The delivery log returns at most this many deliveries, newest first. */
export const DELIVERY_LOG_LIMIT = 100;

export interface WebhookBody {
  url: string;
  events?: string[];
  description?: string;
}

/** What a delivery sends: the event it stands for (0 for a ping, which is in no log), its type and body. */
type Sending = Pick<WebhookDelivery, "eventId" | "eventType" | "payload">;

const badUrl = (message: string) => new AppError("invalid_request", `url: ${message}`, [{ field: "url", message }]);

/** A webhook as the API shows it: never its secret, never credentials inside its URL. */
export function presentWebhook(w: Webhook) {
  return {
    id: w.id,
    pipelineId: w.collectionId,
    url: splitCredentials(w.url).url,
    events: w.events === null ? null : (JSON.parse(w.events) as string[]),
    description: w.description,
    createdAt: w.createdAt,
  };
}

export class WebhookService {
  constructor(
    private readonly db: Store,
    private readonly config: Pick<Config, "fetchAllow" | "fetchDeny">,
  ) {}

  async list(collectionId: string) {
    return (await listWebhooks(this.db.reader, collectionId)).map(presentWebhook);
  }

  /** Creates a webhook; the answer carries its secret, which is never shown again. */
  async create(collectionId: string, body: WebhookBody) {
    const url = this.checkUrl(body.url);
    const row: Webhook = {
      id: Bun.randomUUIDv7(),
      collectionId,
      url,
      events: body.events ? JSON.stringify(body.events) : null,
      description: body.description?.trim() || null,
      secret: `whsec_${randomToken(24)}`,
      createdAt: new Date().toISOString(),
    };
    // Counted in the transaction that adds it: two at once cannot pass the limit.
    await this.db.atomically(async (tx) => {
      // The pipeline may have been deleted while the URL was checked.
      if (!(await findCollectionById(tx, collectionId))) throw notFound("pipeline");
      if ((await listWebhooks(tx, collectionId)).length >= MAX_WEBHOOKS)
        throw new AppError("invalid_request", `a pipeline has at most ${MAX_WEBHOOKS} webhooks; delete one first`);
      await insertWebhook(tx, row);
      noteWebhook(tx, collectionId);
    });
    return { ...presentWebhook(row), secret: row.secret };
  }

  async remove(collectionId: string, id: string) {
    const w = await this.db.atomically(async (tx) => {
      const w = await findWebhook(tx, collectionId, id);
      if (!w) throw notFound("webhook");
      await deleteWebhook(tx, w.id);
      return w;
    });
    return { deleted: true as const, id: w.id };
  }

  async deliveries(collectionId: string, id: string) {
    const w = await findWebhook(this.db.reader, collectionId, id);
    if (!w) throw notFound("webhook");
    const list = await listDeliveries(this.db.reader, w.id, DELIVERY_LOG_LIMIT);
    const tries = await attemptsOf(
      this.db.reader,
      list.map((d) => d.id),
    );
    return list.map((d) => presentDelivery(d, tries.get(d.id) ?? []));
  }

  /**
   * Queues a `ping` to the webhook whatever event types it takes (docs/API.md, Events,
   * "POST …/webhooks/{webhookId}/test"); answers the pending delivery, followed in the log.
   */
  async ping(collectionId: string, id: string) {
    return this.enqueue(collectionId, id, async (_tx, w, now) => ({
      eventId: 0,
      eventType: "ping",
      payload: JSON.stringify({ type: "ping", pipelineId: collectionId, webhookId: w.id, time: now }),
    }));
  }

  /**
   * Queues the body of one of the webhook's settled deliveries again, as a new delivery
   * (its own id, attempts and retries); a pending one is 409, as it is still being tried.
   */
  async redeliver(collectionId: string, id: string, deliveryId: string) {
    return this.enqueue(collectionId, id, async (tx, w) => {
      const d = await findDelivery(tx, w.id, deliveryId);
      if (!d) throw notFound("delivery");
      if (d.status === "pending")
        throw new AppError(
          "conflict",
          "this delivery is still pending and will be tried again; redeliver it once it has settled",
        );
      return { eventId: d.eventId, eventType: d.eventType, payload: d.payload };
    });
  }

  /** Adds a delivery to the webhook's outbox, due now, and wakes the deliverer. */
  private async enqueue(collectionId: string, id: string, what: (tx: Db, w: Webhook, now: string) => Promise<Sending>) {
    const row = await this.db.atomically(async (tx) => {
      const w = await findWebhook(tx, collectionId, id);
      if (!w) throw notFound("webhook");
      const now = new Date().toISOString();
      const deliveryId = Bun.randomUUIDv7();
      await insertDelivery(tx, { id: deliveryId, webhookId: w.id, ...(await what(tx, w, now)), now });
      notifier.noteOutbox();
      return (await findDelivery(tx, w.id, deliveryId))!;
    });
    return presentDelivery(row, []);
  }

  /** An absolute http(s) URL whose host, if written as an address or a loopback name, the fetch rules allow. */
  private checkUrl(raw: string): string {
    let u: URL;
    try {
      u = new URL(raw.trim());
    } catch {
      throw badUrl("must be an absolute http(s) URL");
    }
    if (u.protocol !== "http:" && u.protocol !== "https:") throw badUrl("must be an http(s) URL");
    u.hash = "";
    const refused = literalAddressProblem(u, this.config);
    if (refused) throw badUrl(refused);
    return u.href;
  }
}

const presentDelivery = (d: WebhookDelivery, tries: WebhookAttempt[]) => ({
  id: d.id,
  webhookId: d.webhookId,
  eventId: d.eventId,
  eventType: d.eventType,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: d.status === "pending" ? d.nextAttemptAt : null,
  lastStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  createdAt: d.createdAt,
  deliveredAt: d.deliveredAt,
  payload: d.payload,
  attemptLog: tries.map((a) => ({
    attempt: a.attempt,
    at: a.at,
    statusCode: a.statusCode,
    error: a.error,
    durationMs: a.durationMs,
  })),
});
