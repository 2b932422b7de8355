/** Schemas of the event stream and webhook endpoints (docs/API.md, Events). */
import { t } from "elysia";
import { Enum } from "../../http/schemas";
import { EVENT_TYPES } from "../../ingest/events";

// Enum: an unknown type's 400 lists the valid names, not "one of: 'string', 'string', ...".
const EventType = Enum(EVENT_TYPES, { description: "An event type" });

/** Unknown fields are 400: a misspelt `events` must not quietly subscribe to everything. */
export const WebhookCreate = t.Object(
  {
    url: t.String({ maxLength: 2048, description: "http(s) URL that receives a POST per event" }),
    events: t.Optional(
      t.Array(EventType, { minItems: 1, uniqueItems: true, description: "The event types it receives; all if absent" }),
    ),
    description: t.Optional(t.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const WebhookModel = t.Object({
  id: t.String(),
  pipelineId: t.String(),
  url: t.String({ description: "The URL, without any user:password it was given with" }),
  events: t.Union([t.Array(t.String()), t.Null()], { description: "null: every event type" }),
  description: t.Union([t.String(), t.Null()]),
  createdAt: t.String({ format: "date-time" }),
});

export const WebhookCreated = t.Composite([
  WebhookModel,
  t.Object({
    secret: t.String({
      description: "The HMAC-SHA256 key of X-Ragd-Signature-V2 and X-Ragd-Signature. Shown only in this response.",
    }),
  }),
]);

export const DeliveryModel = t.Object({
  id: t.String({ description: "Also sent as X-Ragd-Delivery, the same on every attempt" }),
  webhookId: t.String(),
  eventId: t.Number({ description: "The event sent; 0 for a test ping, which is in no event log" }),
  eventType: t.String({ description: "The event's type, or ping" }),
  status: t.Union([t.Literal("pending"), t.Literal("delivered"), t.Literal("failed")]),
  attempts: t.Number(),
  nextAttemptAt: t.Union([t.String(), t.Null()]),
  lastStatusCode: t.Union([t.Number(), t.Null()]),
  lastError: t.Union([t.String(), t.Null()]),
  createdAt: t.String(),
  deliveredAt: t.Union([t.String(), t.Null()]),
  payload: t.String({ description: "The exact body sent (and signed)" }),
  attemptLog: t.Array(
    t.Object({
      attempt: t.Number({ description: "1 for the first try" }),
      at: t.String({ description: "When the try started" }),
      statusCode: t.Union([t.Number(), t.Null()], { description: "The receiver's answer; null when none came" }),
      error: t.Union([t.String(), t.Null()]),
      durationMs: t.Number(),
    }),
    { description: "Every try so far, first first" },
  ),
});
