/**
 * The rules for what a source's `metadata` and `externalId` may hold (docs/API.md,
 * "Metadata and external ids"). One owner, used by every door that takes them: the
 * session API, the documents API and knowledge-base uploads. Problems come back as
 * field/message pairs so each door reports them in its own error body.
 */

/** A metadata value: a string, a finite number, a boolean, or an array of strings. */
/** The reserved metadata key listing who may see a source's chunks (docs/API.md, Access rules). */
export const ACCESS_KEY = "_access";

export type MetadataValue = string | number | boolean | string[];
export type Metadata = Record<string, MetadataValue>;

export interface MetadataProblem {
  field: string;
  message: string;
}

export const METADATA_LIMITS = {
  keys: 64,
  keyChars: 64,
  stringChars: 2000,
  arrayItems: 100,
  totalBytes: 16 * 1024,
} as const;

export const EXTERNAL_ID_MAX_CHARS = 256;

/** Keys that every result's metadata already has, or that filters use for a source's own fields. */
export const RESERVED_METADATA_KEYS: ReadonlySet<string> = new Set([
  "sourceId",
  "sourceName",
  "chunkIndex",
  "sourceType",
  "start",
  "end",
  "url",
  "fileName",
  "externalId",
]);

const KEY = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

function valueProblem(value: unknown): string | undefined {
  if (typeof value === "string")
    return value.length > METADATA_LIMITS.stringChars
      ? `must be at most ${METADATA_LIMITS.stringChars} characters`
      : undefined;
  if (typeof value === "number") return Number.isFinite(value) ? undefined : "must be a finite number";
  if (typeof value === "boolean") return undefined;
  if (Array.isArray(value)) {
    if (value.length > METADATA_LIMITS.arrayItems) return `must have at most ${METADATA_LIMITS.arrayItems} items`;
    if (value.some((v) => typeof v !== "string")) return "must be an array of strings";
    if (value.some((v) => (v as string).length > METADATA_LIMITS.stringChars))
      return `items must be at most ${METADATA_LIMITS.stringChars} characters`;
    return undefined;
  }
  return "must be a string, a finite number, a boolean or an array of strings";
}

/**
 * Checks a client's metadata object; `field` prefixes the names in problems
 * (e.g. "metadata" → "metadata.team"). An empty list means it may be stored as is.
 */
export function metadataProblems(input: unknown, field = "metadata"): MetadataProblem[] {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    return [{ field, message: "must be a JSON object of keys and values" }];
  const entries = Object.entries(input);
  const problems: MetadataProblem[] = [];
  if (entries.length > METADATA_LIMITS.keys)
    problems.push({ field, message: `must have at most ${METADATA_LIMITS.keys} keys` });
  for (const [key, value] of entries) {
    if (!KEY.test(key))
      problems.push({
        field: `${field}.${key}`,
        message: "keys start with a letter or _ and hold up to 64 letters, digits, _ . or -",
      });
    else if (RESERVED_METADATA_KEYS.has(key))
      problems.push({ field: `${field}.${key}`, message: `"${key}" is reserved: ragd sets it on every result` });
    else if (key === ACCESS_KEY && !Array.isArray(value))
      problems.push({
        field: `${field}.${key}`,
        message: "lists who may see the source (docs/API.md, Access rules): an array of strings",
      });
    const bad = valueProblem(value);
    if (bad) problems.push({ field: `${field}.${key}`, message: bad });
  }
  if (problems.length === 0 && new TextEncoder().encode(JSON.stringify(input)).length > METADATA_LIMITS.totalBytes)
    problems.push({ field, message: `must be at most ${METADATA_LIMITS.totalBytes / 1024} KB as JSON` });
  return problems;
}

/**
 * Checks an external id: 1..256 characters, no control characters, not only spaces,
 * and not `.` or `..`, which a URL path resolves away before ragd could read them.
 */
export function externalIdProblem(input: unknown, field = "externalId"): MetadataProblem | undefined {
  if (typeof input !== "string") return { field, message: "must be a string" };
  if (input.trim().length === 0) return { field, message: "must not be empty" };
  if (input.length > EXTERNAL_ID_MAX_CHARS)
    return { field, message: `must be at most ${EXTERNAL_ID_MAX_CHARS} characters` };
  if (CONTROL_CHARACTERS.test(input)) return { field, message: "must not contain control characters" };
  if (input === "." || input === "..") return { field, message: "must not be . or .. (a URL path cannot reach them)" };
  return undefined;
}

/** Reads stored metadata (a JSON column) back; a damaged value reads as no metadata. */
export function parseStoredMetadata(json: string | null | undefined): Metadata {
  if (!json) return {};
  try {
    const value = JSON.parse(json);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Metadata) : {};
  } catch {
    return {};
  }
}
