/**
 * API key routes (docs/API.md, API keys): list, create, revoke, under a pipeline; the same
 * routes under a knowledge base (features/kb/key-routes.ts) through `ownedKeyRoutes`.
 */
import { Elysia, t } from "elysia";
import type { User } from "../../db/schema";
import { sessionAuth } from "../../http/auth";
import { Deleted, ErrorBody } from "../../http/schemas";
import type { AuthService } from "../auth/service";
import type { PipelineService } from "../pipelines/service";
import { KeyCreate, KeyCreated, KeyModel } from "./schemas";
import type { KeyService } from "./service";

/** Where a collection's keys live and who may manage them. */
export interface KeyOwnerRoutes {
  /** e.g. "/api/rag/pipelines/:id/keys". */
  prefix: string;
  tag: string;
  /** Throws 404 unless the signed-in user owns the collection `id`. */
  own: (user: User, id: string) => Promise<unknown>;
  summaries: { list: string; create: string; revoke: string };
}

export function keyRoutes(auth: AuthService, pipelines: PipelineService, keys: KeyService) {
  return ownedKeyRoutes(auth, keys, {
    prefix: "/api/rag/pipelines/:id/keys",
    tag: "API keys",
    own: (user, id) => pipelines.own(user, id),
    summaries: {
      list: "List a pipeline's keys (prefixes only)",
      create: "Create a key; the full key is returned only here",
      revoke: "Revoke and delete a key; it stops working at once",
    },
  });
}

/** List, create and revoke the keys of a collection its owner manages. */
export function ownedKeyRoutes(auth: AuthService, keys: KeyService, o: KeyOwnerRoutes) {
  const params = t.Object({ id: t.String() });
  return new Elysia({ prefix: o.prefix, tags: [o.tag] })
    .use(sessionAuth(auth))
    .get(
      "",
      async ({ user, params }) => {
        await o.own(user, params.id);
        return await keys.list(params.id);
      },
      {
        session: true,
        params,
        response: { 200: t.Array(KeyModel), 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
        detail: { summary: o.summaries.list },
      },
    )
    .post(
      "",
      async ({ user, params, body, set }) => {
        await o.own(user, params.id);
        const { scopes, expiresAt, filter } = body;
        const created = await keys.create(params.id, body.name, { scopes, expiresAt, filter });
        set.status = 201;
        return created;
      },
      {
        session: true,
        params,
        parse: "json",
        body: KeyCreate,
        response: { 201: KeyCreated, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
        detail: { summary: o.summaries.create },
      },
    )
    .delete(
      "/:keyId",
      async ({ user, params }) => {
        await o.own(user, params.id);
        return await keys.revoke(params.id, params.keyId);
      },
      {
        session: true,
        params: t.Object({ id: t.String(), keyId: t.String() }),
        response: { 200: Deleted, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
        detail: { summary: o.summaries.revoke },
      },
    );
}
