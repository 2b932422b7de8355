/** Schemas of the API key endpoints (seed 4.4). */
import { t } from "elysia";
import { Name } from "../../http/models";

export const KeyCreate = t.Object({ name: Name(200) });

export const KeyModel = t.Object({
  id: t.String(),
  name: t.String(),
  prefix: t.String({ description: "The first 12 characters of the key, for recognising it." }),
  createdAt: t.String({ format: "date-time" }),
  lastUsedAt: t.Union([t.String({ format: "date-time" }), t.Null()]),
});

export const KeyCreated = t.Composite([
  KeyModel,
  t.Object({ key: t.String({ description: "The full key. Shown only in this response; store it now." }) }),
]);
