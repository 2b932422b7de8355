/**
 * POST /api/kb/{id}/search, the one knowledge-base door with two kinds of caller: the
 * signed-in owner (session cookie), or an application with a key of that knowledge base
 * or a tenant token of such a key (`Authorization: Bearer`), rate-limited and held to the
 * key's filter as POST /api/rag/query is (docs/API.md, Knowledge bases: keys).
 */
import { Elysia, t } from "elysia";
import type { Collection } from "../../db/schema";
import { authenticateSession } from "../../http/auth";
import { AppError } from "../../http/errors";
import { ErrorBody } from "../../http/schemas";
import { unknownFields } from "../../http/unknown-fields";
import { sessionCookie } from "../auth/cookie";
import type { AuthService } from "../auth/service";
import { QueryResponse, SearchBody } from "../query/schemas";
import type { QueryService } from "../query/service";
import type { KbService } from "./service";

/** Who is searching: the owner, or a key of the knowledge base with what it may see. */
type Caller =
  | { kind: "owner"; user: Parameters<KbService["search"]>[0]; cookie: string | null }
  | { kind: "key"; kb: Collection; keyId: string; access: string | null };

export function kbSearchRoutes(auth: AuthService, kbs: KbService, queries: QueryService) {
  return (
    new Elysia({ tags: ["Knowledge bases"] })
      .use(unknownFields)
      // Before the body is validated: a bad key or a missing session answers first.
      .derive({ as: "local" }, async ({ request, params }): Promise<{ caller: Caller }> => {
        const authorization = request.headers.get("authorization");
        if (authorization === null) {
          const s = await authenticateSession(auth, request);
          return {
            caller: { kind: "owner", user: s.user, cookie: s.renewed ? sessionCookie(s.token, request) : null },
          };
        }
        const { collection, keyId, access } = await queries.admitKey(authorization, 1, "kb");
        if (collection.id !== (params as { id?: string }).id)
          throw new AppError("forbidden", "this API key belongs to another knowledge base");
        return { caller: { kind: "key", kb: collection, keyId, access } };
      })
      .post(
        "/api/kb/:id/search",
        ({ caller, params, body, set }) => {
          if (caller.kind === "key") return kbs.searchAs(caller.kb, body, caller.access, caller.keyId);
          if (caller.cookie) set.headers["set-cookie"] = caller.cookie;
          return kbs.search(caller.user, params.id, body);
        },
        {
          rejectUnknownFields: SearchBody,
          params: t.Object({ id: t.String() }),
          parse: "json",
          body: SearchBody,
          response: {
            200: t.Composite([t.Omit(QueryResponse, ["pipelineId"]), t.Object({ kbId: t.String() })]),
            400: ErrorBody,
            401: ErrorBody,
            403: ErrorBody,
            404: ErrorBody,
            429: ErrorBody,
            503: ErrorBody,
          },
          detail: {
            summary:
              "Search a knowledge base, signed in or with one of its keys; same result shape as the query endpoint, with kbId",
            security: [{ apiKey: [] }, { session: [] }],
          },
        },
      )
  );
}
