/**
 * `filter.metadata` (docs/API.md, Query, "Filtering on metadata"): checked, then
 * compiled to a SQL predicate over the chunk table's metadata columns: equality,
 * $in and $exists as term lookups (indexed), ranges over the JSON (meta-index.ts). Values only
 * ever reach the SQL as quoted literals or as numbers this code printed itself, so
 * a metadata value is data, never SQL. Every refusal names the field at fault.
 */
import { METADATA_LIMITS, RESERVED_METADATA_KEYS } from "../core/metadata";
import { type Comparison, compareNumber, compareString, hasAnyTerm, keyTerm, valueTerm } from "../vectors/meta-index";
import { RetrievalError } from "./errors";

/**
 * `chars` bounds a filter's keys and values together: each string is already at most a
 * stored string's 2,000 characters, yet 9.6 MB of them still cost 1–1.5 s per query.
 */
export const FILTER_LIMITS = { depth: 5, conditions: 200, inValues: 100, chars: 100_000 } as const;

/** Source fields a filter may name beside metadata keys. */
const SOURCE_FIELDS = new Set(["sourceType", "externalId"]);
const KEY = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const OPERATORS = ["$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte", "$exists"] as const;
type Operator = (typeof OPERATORS)[number];
const RANGE: Partial<Record<Operator, Exclude<Comparison, "=">>> = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" };

type Scalar = string | number | boolean;

class Compiler {
  private conditions = 0;

  /** A filter object: every entry must hold (AND). */
  object(value: unknown, path: string, depth: number): string {
    if (depth > FILTER_LIMITS.depth) fail(path, `nests $and/$or more than ${FILTER_LIMITS.depth} levels deep`);
    if (!isPlainObject(value)) fail(path, `must be an object of metadata keys and conditions, not ${describe(value)}`);
    const parts = Object.entries(value).map(([key, v]) => this.entry(key, v, `${path}.${key}`, depth));
    return parts.length ? join(parts, "AND") : "true";
  }

  private entry(key: string, value: unknown, path: string, depth: number): string {
    if (key === "$and" || key === "$or") {
      if (!Array.isArray(value) || value.length === 0) fail(path, "must be a non-empty array of filter objects");
      const parts = value.map((v, i) => this.object(v, `${path}.${i}`, depth + 1));
      return join(parts, key === "$and" ? "AND" : "OR");
    }
    if (key.startsWith("$")) fail(path, `unknown operator ${key}; at this level use a metadata key, $and or $or`);
    checkKey(key, path);
    if (isPlainObject(value)) {
      const ops = Object.entries(value);
      if (!ops.length) fail(path, `must hold at least one of ${OPERATORS.join(" ")}`);
      return join(
        ops.map(([op, operand]) => this.operator(key, op, operand, `${path}.${op}`)),
        "AND",
      );
    }
    return this.operator(key, "$eq", value, path);
  }

  private operator(key: string, op: string, operand: unknown, path: string): string {
    if (++this.conditions > FILTER_LIMITS.conditions)
      fail(path, `a filter holds at most ${FILTER_LIMITS.conditions} conditions`);
    if (!(OPERATORS as readonly string[]).includes(op))
      fail(path, `unknown operator ${op}; expected one of ${OPERATORS.join(" ")}`);
    switch (op as Operator) {
      case "$eq":
        return hasAnyTerm([valueTerm(key, scalar(key, operand, path))]);
      case "$ne":
        return `(NOT ${hasAnyTerm([valueTerm(key, scalar(key, operand, path))])})`;
      case "$in":
        return hasAnyTerm(list(key, operand, path).map((v) => valueTerm(key, v)));
      case "$nin":
        return `(NOT ${hasAnyTerm(list(key, operand, path).map((v) => valueTerm(key, v)))})`;
      case "$exists":
        if (typeof operand !== "boolean") fail(path, "must be true or false");
        return operand ? hasAnyTerm([keyTerm(key)]) : `(NOT ${hasAnyTerm([keyTerm(key)])})`;
      default: {
        const cmp = RANGE[op as Operator]!;
        if (typeof operand === "number" && SOURCE_FIELDS.has(key)) fail(path, `${key} is a string; got a number`);
        if (typeof operand === "number") return compareNumber(key, cmp, operand);
        if (typeof operand === "string") return compareString(key, cmp, checkedString(operand, path));
        fail(path, `compares with a number or a string, not ${describe(operand)}`);
      }
    }
  }
}

/** Compiles `filter.metadata`; null when it asks for nothing. Throws an `invalid_request` RetrievalError. */
export function compileMetadataFilter(filter: unknown, path = "filter.metadata"): string | null {
  if (filter === undefined) return null;
  if (charsOver(filter, FILTER_LIMITS.chars))
    fail(path, `must hold at most ${FILTER_LIMITS.chars} characters of keys and values`);
  const sql = new Compiler().object(filter, path, 0);
  return sql === "true" ? null : sql;
}

/** Whether the strings of a JSON value (object keys included) hold more than `limit` characters. */
function charsOver(value: unknown, limit: number): boolean {
  let chars = 0;
  // A stack, not recursion: the nesting is checked only later, by the compiler.
  const stack = [value];
  while (stack.length && chars <= limit) {
    const v = stack.pop();
    if (typeof v === "string") chars += v.length;
    else if (Array.isArray(v)) for (const item of v) stack.push(item);
    else if (isPlainObject(v))
      for (const [k, inner] of Object.entries(v)) {
        chars += k.length;
        stack.push(inner);
      }
  }
  return chars > limit;
}

function scalar(key: string, v: unknown, path: string): Scalar {
  if (typeof v === "string") return checkedString(v, path);
  if (SOURCE_FIELDS.has(key)) fail(path, `${key} is a string; got ${describe(v)}`);
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "boolean") return v;
  if (Array.isArray(v)) fail(path, 'must be a single value; to match any of several use {"$in": [...]}');
  if (v === null) fail(path, 'must not be null; to match a missing key use {"$exists": false}');
  fail(path, `must be a string, a number or a boolean, not ${describe(v)}`);
}

function list(key: string, v: unknown, path: string): Scalar[] {
  if (!Array.isArray(v) || v.length === 0) fail(path, "must be a non-empty array of values");
  if (v.length > FILTER_LIMITS.inValues) fail(path, `must have at most ${FILTER_LIMITS.inValues} values`);
  return v.map((item, i) => scalar(key, item, `${path}.${i}`));
}

function checkKey(key: string, path: string): void {
  if (SOURCE_FIELDS.has(key)) return;
  if (key === "sourceId") fail(path, "filter by source with filter.sourceIds");
  if (RESERVED_METADATA_KEYS.has(key))
    fail(path, `"${key}" cannot be filtered on; use sourceType, externalId or a metadata key`);
  if (!KEY.test(key))
    fail(path, "is not a metadata key: keys start with a letter or _ and hold up to 64 letters, digits, _ . or -");
}

/**
 * A string operand. None longer than a stored metadata string can match, and an 8 MB one
 * cost a second of CPU per request, so it is refused before anything else reads it.
 */
function checkedString(s: string, path: string): string {
  if (s.length > METADATA_LIMITS.stringChars) fail(path, `must be at most ${METADATA_LIMITS.stringChars} characters`);
  if (s.includes("\0")) fail(path, "must not contain NUL characters");
  return s;
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function join(parts: string[], op: "AND" | "OR"): string {
  return parts.length === 1 ? parts[0]! : `(${parts.join(` ${op} `)})`;
}

function fail(field: string, message: string): never {
  throw new RetrievalError("invalid_request", `${field}: ${message}`, { field, message });
}
