/**
 * A knowledge base's API keys (docs/API.md, Knowledge bases: keys): list, create, revoke,
 * for its owner. They search the knowledge base through POST /api/kb/{id}/search and /mcp,
 * with the query scope (and tokens); they reach no pipeline (QueryService.admitKey).
 */
import { Elysia, t } from "elysia";
import { sessionAuth } from "../../http/auth";
import { Deleted, ErrorBody } from "../../http/models";
import type { AuthService } from "../auth/service";
import { KeyCreate, KeyCreated, KeyModel } from "../keys/model";
import type { KeyService } from "../keys/service";
import type { KbService } from "./service";

export function kbKeyRoutes(auth: AuthService, kbs: KbService, keys: KeyService) {
  return new Elysia({ prefix: "/api/kb/:id/keys", tags: ["Knowledge bases"] })
    .use(sessionAuth(auth))
    .get(
      "",
      async ({ user, params }) => {
        await kbs.find(user, params.id);
        return await keys.list(params.id);
      },
      {
        session: true,
        params: t.Object({ id: t.String() }),
        response: { 200: t.Array(KeyModel), 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
        detail: { summary: "List a knowledge base's keys (prefixes only)" },
      },
    )
    .post(
      "",
      async ({ user, params, body, set }) => {
        await kbs.find(user, params.id);
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
        detail: {
          summary: 'Create a key that searches this knowledge base ("query", and "tokens"); shown only here',
        },
      },
    )
    .delete(
      "/:keyId",
      async ({ user, params }) => {
        await kbs.find(user, params.id);
        return await keys.revoke(params.id, params.keyId);
      },
      {
        session: true,
        params: t.Object({ id: t.String(), keyId: t.String() }),
        response: { 200: Deleted, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
        detail: { summary: "Revoke and delete a knowledge base's key; it stops working at once" },
      },
    );
}
