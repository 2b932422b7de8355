/** Schemas of the API key endpoints (docs/API.md, API keys). */
import { t } from "elysia";
import { Name } from "../../http/schemas";

export const KeyCreate = t.Object({
  name: Name(200),
  scopes: t.Optional(
    t.Array(t.String(), {
      description:
        'What the key may do: a non-empty subset of "query", "ingest", "tokens" (mint tenant tokens; with "query"). Default ["query"].',
    }),
  ),
  filter: t.Optional(
    t.Unknown({
      description:
        "A metadata filter (the query's filter.metadata shape) ANDed into every query, MCP call and read the key and its tokens make. A key with a filter cannot have the ingest scope.",
    }),
  ),
  expiresAt: t.Optional(
    t.String({ description: "When the key stops working: an ISO 8601 date-time in the future. Default: never." }),
  ),
});

export const KeyModel = t.Object({
  id: t.String(),
  name: t.String(),
  prefix: t.String({ description: "The first 12 characters of the key, for recognising it." }),
  scopes: t.Array(t.String()),
  expiresAt: t.Union([t.String({ format: "date-time" }), t.Null()]),
  filter: t.Unknown({ description: "The key's filter; null when it has none." }),
  createdAt: t.String({ format: "date-time" }),
  lastUsedAt: t.Union([t.String({ format: "date-time" }), t.Null()]),
});

export const KeyCreated = t.Composite([
  KeyModel,
  t.Object({
    key: t.String({ description: "The full key. Shown only in this response; store it now." }),
    tokenSecret: t.Optional(
      t.String({
        description: "Keys with the tokens scope: the HS256 secret to sign tenant tokens with. Shown only here.",
      }),
    ),
  }),
]);
