/** API key routes (docs/API.md, API keys): list, create, revoke, under a pipeline. */
import { Elysia, t } from "elysia";
import { sessionAuth } from "../../http/auth";
import { Deleted, ErrorBody } from "../../http/models";
import type { AuthService } from "../auth/service";
import type { PipelineService } from "../pipelines/service";
import { KeyCreate, KeyCreated, KeyModel } from "./model";
import type { KeyService } from "./service";

export function keyRoutes(auth: AuthService, pipelines: PipelineService, keys: KeyService) {
  return new Elysia({ prefix: "/api/rag/pipelines/:id/keys", tags: ["API keys"] })
    .use(sessionAuth(auth))
    .get(
      "",
      async ({ user, params }) => {
        await pipelines.own(user, params.id);
        return await keys.list(params.id);
      },
      {
        session: true,
        params: t.Object({ id: t.String() }),
        response: { 200: t.Array(KeyModel), 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
        detail: { summary: "List a pipeline's keys (prefixes only)" },
      },
    )
    .post(
      "",
      async ({ user, params, body, set }) => {
        await pipelines.own(user, params.id);
        const { scopes, expiresAt, filter } = body;
        const created = await keys.create(params.id, body.name, { scopes, expiresAt, filter });
        set.status = 201;
        return created;
      },
      {
        session: true,
        params: t.Object({ id: t.String() }),
        parse: "json",

        body: KeyCreate,
        response: { 201: KeyCreated, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
        detail: { summary: "Create a key; the full key is returned only here" },
      },
    )
    .delete(
      "/:keyId",
      async ({ user, params }) => {
        await pipelines.own(user, params.id);
        return await keys.revoke(params.id, params.keyId);
      },
      {
        session: true,
        params: t.Object({ id: t.String(), keyId: t.String() }),
        response: { 200: Deleted, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
        detail: { summary: "Revoke and delete a key; it stops working at once" },
      },
    );
}
