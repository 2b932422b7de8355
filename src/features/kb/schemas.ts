/** Schemas of the knowledge-base endpoints (docs/API.md, "Knowledge bases"). */
import { t } from "elysia";
import { Enum, Name, StrictInteger } from "../../http/schemas";
import { SOURCE_STATUSES } from "../sources/schemas";

export const KbCreate = t.Object({
  name: Name(200),
  description: t.Optional(t.Union([t.String({ maxLength: 5000 }), t.Null()])),
  language: t.Optional(
    t.String({ minLength: 1, maxLength: 16, description: "auto (the default) or a code from GET /api/languages." }),
  ),
});

export const KbModel = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.Union([t.String(), t.Null()], { description: "null when none was given" }),
  documentCount: StrictInteger(),
  language: t.String({ description: "auto, a language code, or legacy (made before the setting existed)." }),
  created_at: t.String({ format: "date-time" }),
});

export const KbDocumentModel = t.Object({
  id: t.String(),
  kbId: t.String(),
  fileName: t.String(),
  fileSize: StrictInteger(),
  status: Enum(SOURCE_STATUSES),
  error: t.Union([t.String(), t.Null()]),
  chunkCount: StrictInteger(),
  created_at: t.String({ format: "date-time" }),
  metadata: t.Record(t.String(), t.Unknown(), { description: "The labels sent with the upload ({} when none)." }),
  ocr: t.Optional(
    t.Object(
      { languages: t.Array(t.String()), pages: StrictInteger() },
      { description: "Present when OCR read some of the indexed text, as on a source." },
    ),
  ),
});

export const KbDetail = t.Composite([KbModel, t.Object({ documents: t.Array(KbDocumentModel) })]);

export type Kb = typeof KbModel.static;
export type KbDocument = typeof KbDocumentModel.static;
