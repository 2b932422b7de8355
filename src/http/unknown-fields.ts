/**
 * Refusing unknown fields. Elysia's body normalisation drops properties a schema
 * does not list before it validates, so `additionalProperties: false` alone never
 * fails: a misspelt `{"filter":{"metdata":{…}}}` reached the search as an empty filter and
 * answered 200 with unfiltered results. This check runs on the raw body before
 * validation (as a `transform` hook) and names every unknown field.
 */
import type { TSchema } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { AppError, type FieldProblem } from "./errors";

/**
 * The `rejectUnknownFields` macro: 400 `invalid_request` when the body has a field
 * that an object of the given schema marked `additionalProperties: false` does not
 * list. Macro hooks run in the order of their keys and after the route's own hooks,
 * so put it after `session: true` to check the session first.
 *
 * @example .use(unknownFields).post("/search", handler, { session: true, rejectUnknownFields: SearchBody, body: SearchBody })
 */
export const unknownFields = new Elysia({ name: "unknown-fields" }).macro({
  rejectUnknownFields: (schema: TSchema) => ({
    transform({ body }: { body: unknown }) {
      const problems: FieldProblem[] = [];
      collectUnknown(schema, body, "", problems);
      const first = problems[0];
      if (first) throw new AppError("invalid_request", `${first.field}: ${first.message}`, problems.slice(0, 20));
    },
  }),
});

function collectUnknown(schema: TSchema, value: unknown, path: string, out: FieldProblem[]): void {
  if (schema.type === "array" && Array.isArray(value) && schema.items) {
    for (const [i, v] of value.entries()) collectUnknown(schema.items as TSchema, v, `${path}.${i}`, out);
    return;
  }
  if (schema.type !== "object" || typeof value !== "object" || value === null || Array.isArray(value)) return;
  const properties: Record<string, TSchema> = schema.properties ?? {};
  const known = Object.keys(properties);
  for (const [key, v] of Object.entries(value)) {
    const field = path ? `${path}.${key}` : key;
    // hasOwn: a field named "constructor" or "toString" is not a known one.
    if (Object.hasOwn(properties, key)) collectUnknown(properties[key]!, v, field, out);
    else if (schema.additionalProperties === false)
      out.push({ field, message: `unknown field; expected one of: ${known.join(", ")}` });
  }
}
