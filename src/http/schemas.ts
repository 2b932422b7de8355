/** Schemas shared by every feature: the error body and the delete result. */
import { Kind, Type, TypeRegistry, type SchemaOptions, type TUnsafe } from "@sinclair/typebox";
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

/**
 * A name (of a pipeline, knowledge base, source or key): surrounding whitespace is
 * trimmed before it is stored, and what is left must be 1..`max` characters, so a
 * whitespace-only name is 400 naming the field (docs/API.md, Conventions).
 */
export function Name(max = 200, options: SchemaOptions = {}) {
  // JavaScript's \s is exactly the set String.prototype.trim removes.
  const pattern = `^\\s*\\S(?:[\\s\\S]{0,${max - 2}}\\S)?\\s*$`;
  const error = `must be 1 to ${max} characters, not counting whitespace around it`;
  return t
    .Transform(t.String({ pattern, error, description: `1..${max} characters after trimming.`, ...options }))
    .Decode((name) => name.trim())
    .Encode((name) => name);
}

/**
 * A strict integer for JSON bodies. Elysia's `t.Integer` also accepts numeric
 * strings ("500"), which the contract calls a wrong type; TypeBox's does not.
 * (Query strings use QueryInteger below, since there every value is a string.)
 */
export { Integer as StrictInteger } from "@sinclair/typebox";

/**
 * One of fixed string values. Elysia's `t.UnionEnum` gives every such field a
 * default (its first value), which silently filled in omitted optional fields.
 */
export function Enum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnsafe<T[number]> {
  // Unsafe only retypes the static side; the schema stays a union of literals.
  const error = `must be one of: ${values.join(", ")}`;
  return Type.Unsafe<T[number]>(
    Type.Union(
      values.map((v) => Type.Literal(v)),
      { error, ...options },
    ),
  );
}

interface Bounds {
  minimum: number;
  maximum: number;
}

const QUERY_INTEGER = "RagdQueryInteger";
TypeRegistry.Set<Bounds>(QUERY_INTEGER, ({ minimum, maximum }, value) => {
  const n = typeof value === "string" && /^[+-]?\d{1,16}$/.test(value) ? Number(value) : value;
  return Number.isInteger(n) && (n as number) >= minimum && (n as number) <= maximum;
});

/**
 * An integer in the query string. Elysia's `t.Integer` checks the bounds only after
 * decoding, and an error thrown there loses the field's name (`(property)`); this
 * checks the string itself, so a failure names its field like any other.
 */
export function QueryInteger(bounds: Bounds & { default?: number; description?: string }) {
  const error = `must be an integer from ${bounds.minimum} to ${bounds.maximum}`;
  const raw = Type.Unsafe<number>({ [Kind]: QUERY_INTEGER, type: "integer", ...bounds, error });
  return t
    .Transform(raw)
    .Decode((v) => Number(v))
    .Encode((v) => v);
}
