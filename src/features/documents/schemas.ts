/** Schemas of the key-authenticated documents API (docs/API.md, Documents API). */
import { t } from "elysia";
import { Enum, QueryInteger } from "../../http/schemas";
import { CrawlInput, metadataInput, refreshEveryInput, SOURCE_STATUSES, SourceModel } from "../sources/schemas";

export const DOCUMENT_TYPES = ["text", "url", "api"] as const;
export const UPSERT_STATUSES = ["created", "replaced", "unchanged"] as const;
export const BATCH_MAX = 1000;

/** A source as the documents API shows it: its external id and metadata, without the text preview. */
export const DocumentModel = t.Composite([
  t.Omit(SourceModel, ["content"]),
  t.Object({
    externalId: t.Union([t.String(), t.Null()]),
    metadata: t.Record(t.String(), t.Unknown()),
    contentHash: t.Union([t.String(), t.Null()], {
      description:
        "SHA-256 (hex) of what was last indexed: a file's bytes or a text's content (of a url/api document, its extracted text); null before that. A sync client compares it to skip unchanged files.",
    }),
  }),
]);

export type DocumentOut = typeof DocumentModel.static;

export const UpsertResult = t.Object({
  externalId: t.String(),
  status: Enum(UPSERT_STATUSES),
  unchanged: t.Boolean({ description: "True when the content was already indexed: nothing was re-embedded." }),
  metadataChanged: t.Boolean({ description: "True when only the name or metadata changed (no re-embedding)." }),
  source: DocumentModel,
});

export const BatchBody = t.Object(
  {
    documents: t.Array(t.Unknown(), {
      minItems: 1,
      maxItems: BATCH_MAX,
      description:
        "Up to 1,000 items {externalId, type, name?, content?, url?, metadata?, refreshEvery?, crawl?} (each as the JSON body of PUT /api/rag/documents/{externalId}); each is checked alone.",
    }),
  },
  { additionalProperties: false },
);

export const BatchItemResult = t.Object({
  externalId: t.Union([t.String(), t.Null()]),
  status: Enum([...UPSERT_STATUSES, "error"] as const),
  unchanged: t.Optional(t.Boolean()),
  metadataChanged: t.Optional(t.Boolean()),
  source: t.Optional(DocumentModel),
  error: t.Optional(
    t.Object({
      code: t.String(),
      message: t.String(),
      details: t.Optional(t.Array(t.Object({ field: t.String(), message: t.String() }))),
    }),
  ),
});

export const BatchResponse = t.Object({ results: t.Array(BatchItemResult) });

export const ListQuery = t.Object({
  page: t.Optional(QueryInteger({ minimum: 1, maximum: 1_000_000, default: 1 })),
  pageSize: t.Optional(QueryInteger({ minimum: 1, maximum: 1000, default: 100 })),
  status: t.Optional(Enum(SOURCE_STATUSES)),
  updatedSince: t.Optional(t.String({ description: "ISO 8601: only documents changed after this instant." })),
});

export const DocumentPage = t.Object({
  documents: t.Array(DocumentModel),
  page: t.Integer(),
  pageSize: t.Integer(),
  total: t.Integer(),
});

/**
 * The JSON body of PUT /api/rag/documents/{externalId}, for the API reference only: the
 * route reads JSON or multipart and checks each field itself (input.ts), naming it on 400.
 */
const DocumentUpsertBody = t.Object(
  {
    type: Enum(DOCUMENT_TYPES),
    name: t.Optional(
      t.String({ description: "1..200 characters after trimming; a replaced document keeps its name when omitted." }),
    ),
    content: t.Optional(t.String({ description: "text: the text, required." })),
    url: t.Optional(t.String({ maxLength: 4096, description: "url and api: the http(s) URL, required." })),
    metadata: t.Optional(metadataInput(" Omitted: a replaced document keeps its metadata.")),
    refreshEvery: t.Optional(refreshEveryInput),
    crawl: t.Optional(CrawlInput),
  },
  { additionalProperties: false },
);

/** As the OpenAPI document takes it: plain JSON Schema, without TypeBox's own markers. */
export const DocumentUpsertJson = JSON.parse(JSON.stringify(DocumentUpsertBody)) as { type: "object" };
