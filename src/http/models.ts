/** Schemas shared by every feature: the error body and the delete result. */
import { t } from "elysia";

export const ErrorBody = t.Object(
  {
    error: t.Object({
      code: t.String({ description: "Stable machine-readable code, e.g. invalid_request" }),
      message: t.String({ description: "What went wrong, for a person" }),
      details: t.Optional(t.Array(t.Object({ field: t.String(), message: t.String() }))),
      requestId: t.Optional(t.String()),
    }),
  },
  { description: "Every failure has this body." },
);

export const Deleted = t.Object({ deleted: t.Literal(true), id: t.String() });

export const IdParam = t.Object({ id: t.String() });
