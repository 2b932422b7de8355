/**
 * Event routes under a pipeline (docs/API.md, Events): the SSE stream and the
 * webhooks with their delivery log, test pings and redeliveries. Session doors; the
 * pipeline must be the user's.
 */
import { Elysia, t } from "elysia";
import { readCookie, sessionAuth } from "../../http/auth";
import { SESSION_COOKIE } from "../auth/cookie";
import { Deleted, ErrorBody } from "../../http/schemas";
import { unknownFields } from "../../http/unknown-fields";
import type { AuthService } from "../auth/service";
import type { KeyService } from "../keys/service";
import type { PipelineService } from "../pipelines/service";
import { DeliveryModel, WebhookCreate, WebhookCreated, WebhookModel } from "./schemas";
import type { EventService } from "./service";
import type { WebhookService } from "./webhooks";

const Params = t.Object({ id: t.String() });
const HookParams = t.Object({ id: t.String(), webhookId: t.String() });
const DeliveryParams = t.Object({ id: t.String(), webhookId: t.String(), deliveryId: t.String() });
const Errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

export function eventRoutes(
  auth: AuthService,
  pipelines: PipelineService,
  events: EventService,
  hooks: WebhookService,
) {
  const own = async (user: Parameters<PipelineService["own"]>[0], id: string) => (await pipelines.own(user, id)).id;
  return new Elysia({ prefix: "/api/rag/pipelines/:id", tags: ["Events"] })
    .use(sessionAuth(auth))
    .use(unknownFields)
    .get(
      "/events",
      async ({ user, params, query, request }) => {
        // Signing out, a password change or an administrator's reset ends the session: its stream ends with it.
        const token = readCookie(request, SESSION_COOKIE);
        return events.eventStream(
          await own(user, params.id),
          request.headers.get("last-event-id") ?? query.lastEventId ?? null,
          request.signal,
          { allowed: () => (token ? auth.sessionLive(token) : Promise.resolve(false)) },
        );
      },
      {
        session: true,
        params: Params,
        query: t.Object({ lastEventId: t.Optional(t.String()) }),
        detail: {
          summary: "Server-Sent Events of the pipeline's sources; Last-Event-ID (or ?lastEventId=) resumes",
          responses: { 200: { description: "text/event-stream", content: { "text/event-stream": {} } } },
        },
      },
    )
    .get("/webhooks", async ({ user, params }) => hooks.list(await own(user, params.id)), {
      session: true,
      params: Params,
      response: { 200: t.Array(WebhookModel), ...Errors },
      detail: { summary: "List the pipeline's webhooks (without secrets)" },
    })
    .post(
      "/webhooks",
      async ({ user, params, body, set }) => {
        const created = await hooks.create(await own(user, params.id), body);
        set.status = 201;
        return created;
      },
      {
        session: true,
        rejectUnknownFields: WebhookCreate, // after session, so a missing session is 401 first
        params: Params,
        parse: "json",
        body: WebhookCreate,
        response: { 201: WebhookCreated, 400: ErrorBody, ...Errors },
        detail: { summary: "Add a webhook; its signing secret is returned only here" },
      },
    )
    .delete(
      "/webhooks/:webhookId",
      async ({ user, params }) => hooks.remove(await own(user, params.id), params.webhookId),
      {
        session: true,
        params: HookParams,
        response: { 200: Deleted, ...Errors },
        detail: { summary: "Delete a webhook and its delivery log" },
      },
    )
    .get(
      "/webhooks/:webhookId/deliveries",
      async ({ user, params }) => hooks.deliveries(await own(user, params.id), params.webhookId),
      {
        session: true,
        params: HookParams,
        response: { 200: t.Array(DeliveryModel), ...Errors },
        detail: { summary: "The webhook's newest deliveries (at most 100), with attempts and last outcome" },
      },
    )
    .post(
      "/webhooks/:webhookId/test",
      async ({ user, params, set }) => {
        const delivery = await hooks.ping(await own(user, params.id), params.webhookId);
        set.status = 202;
        return delivery;
      },
      {
        session: true,
        params: HookParams,
        response: { 202: DeliveryModel, ...Errors },
        detail: { summary: "Send the webhook a ping event now; answers the queued delivery" },
      },
    )
    .post(
      "/webhooks/:webhookId/deliveries/:deliveryId/redeliver",
      async ({ user, params, set }) => {
        const delivery = await hooks.redeliver(await own(user, params.id), params.webhookId, params.deliveryId);
        set.status = 202;
        return delivery;
      },
      {
        session: true,
        params: DeliveryParams,
        response: { 202: DeliveryModel, 409: ErrorBody, ...Errors },
        detail: { summary: "Send a settled delivery's body again, as a new delivery" },
      },
    );
}

/**
 * The same stream for applications (docs/API.md, Events): a key with the ingest
 * scope opens it, and the pipeline is the key's. A session cookie does not.
 */
export function keyEventRoutes(keys: KeyService, events: EventService) {
  return new Elysia({ tags: ["Events"] }).get(
    "/api/rag/events",
    async ({ query, request }) => {
      const authorization = request.headers.get("authorization");
      const { keyId, collectionId } = await keys.authorize(authorization, "ingest");
      // The stream ends at once when the key is revoked here, and within seconds when it
      // expires or is revoked through another process (docs/API.md, Events).
      const held = keys.hold(keyId);
      return events.eventStream(
        collectionId,
        request.headers.get("last-event-id") ?? query.lastEventId ?? null,
        AbortSignal.any([request.signal, held.signal]),
        { allowed: () => keys.allows(authorization, "ingest"), onEnd: held.release },
      );
    },
    {
      query: t.Object({ lastEventId: t.Optional(t.String()) }),
      detail: {
        summary: "Server-Sent Events of the key's pipeline (ingest scope); Last-Event-ID resumes",
        security: [{ apiKey: [] }],
        responses: { 200: { description: "text/event-stream", content: { "text/event-stream": {} } } },
      },
    },
  );
}
