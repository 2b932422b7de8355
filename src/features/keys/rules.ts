/**
 * The rules of API keys, apart from the service that checks them: their shape, scopes,
 * expiry, and what a stored key grants (service.ts caches grants).
 */
import type { ApiKey } from "../../db/schema";
import { parseDateTime } from "../../http/date-time";
import { AppError } from "../../http/errors";
import { keyAccessOf } from "./access";

export const KEY_PREFIX = "rag_";
export const KEY_BODY_LENGTH = 40;
export const VISIBLE_PREFIX = 12;
export const CACHE_MAX = 10_000;
export const KEY_SHAPE = /^rag_[0-9A-Za-z]{40,200}$/;

export const KEY_SCOPES = ["query", "ingest", "tokens"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export interface PublicKey {
  id: string;
  name: string;
  prefix: string;
  scopes: KeyScope[];
  expiresAt: string | null;
  /** The metadata filter every query of the key and its tokens is held to; null: none. */
  filter: unknown;
  createdAt: string;
  lastUsedAt: string | null;
}

/** Who is asking through a key-authenticated route, and what they may see. */
export interface KeyCaller {
  keyId: string;
  collectionId: string;
  /** What the key belongs to: a pipeline, or a knowledge base (searched through its own door). */
  kind: "pipeline" | "kb";
  /** SQL over the chunk table every search of theirs is held to (access.ts); null: everything. */
  access: string | null;
  /** True when a tenant token, not the key itself, was presented. */
  token: boolean;
}

/** What a presented key may do, as cached by its hash. */
export interface Grant {
  keyId: string;
  collectionId: string;
  kind: "pipeline" | "kb";
  /** The pipeline's owner: a disabled owner's keys stop answering. */
  userId: string;
  scopes: KeyScope[];
  /** Epoch milliseconds; Infinity when the key never expires. */
  expires: number;
  /** The key's filter compiled to SQL (access.ts keyAccessOf); null: none. */
  keyAccess: string | null;
  /** Its tenant tokens' HS256 secret; null when it has no tokens scope. */
  tokenSecret: string | null;
}

/** Reads the stored scopes; a damaged value grants nothing. */
export function parseScopes(json: string): KeyScope[] {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.filter((s): s is KeyScope => (KEY_SCOPES as readonly string[]).includes(s)) : [];
  } catch {
    return [];
  }
}

export const field = (name: string, message: string) =>
  new AppError("invalid_request", `${name}: ${message}`, [{ field: name, message }]);

/** Checks requested scopes: a non-empty list of distinct known scopes; `["query"]` when omitted. */
export function checkScopes(input: unknown): KeyScope[] {
  if (input === undefined) return ["query"];
  if (!Array.isArray(input) || input.length === 0)
    throw field("scopes", `must be a non-empty array of: ${KEY_SCOPES.join(", ")}`);
  for (const s of input)
    if (!(KEY_SCOPES as readonly unknown[]).includes(s))
      throw field("scopes", `unknown scope ${JSON.stringify(s)}; known scopes: ${KEY_SCOPES.join(", ")}`);
  if (new Set(input).size !== input.length) throw field("scopes", "lists a scope twice");
  if (input.length === 1 && input[0] === "tokens")
    throw field("scopes", 'tokens only query: give the key "query" with it, or use "query" alone');
  return input as KeyScope[];
}

/** Checks an expiry: a date-time (http/date-time.ts) in the future; null when omitted. */
export function checkExpiry(input: unknown, now = Date.now()): string | null {
  if (input === undefined || input === null) return null;
  const ms = parseDateTime(input, "expiresAt");
  if (ms <= now) throw field("expiresAt", "must be in the future");
  return new Date(ms).toISOString();
}

/** Why a presented key cannot be a ragd key: a cut-short `rag_` key is told so. */
export function shapeProblem(raw: string): string {
  if (!raw.startsWith(KEY_PREFIX)) return "that is not a ragd API key (they start with rag_)";
  const tail = raw.slice(KEY_PREFIX.length);
  const shape = `a ragd key is rag_ followed by ${KEY_BODY_LENGTH} letters and digits`;
  if (tail.length < KEY_BODY_LENGTH && /^[0-9A-Za-z]*$/.test(tail))
    return `that API key is incomplete: ${shape}, and this one has only ${tail.length} (was it cut short when copied?)`;
  return `that API key is malformed: ${shape}`;
}

/** What a stored key grants, as cached. */
export function grantOf(found: {
  key: ApiKey;
  collection: { id: string; userId: string; kind: "pipeline" | "kb" };
}): Grant {
  return {
    keyId: found.key.id,
    collectionId: found.collection.id,
    kind: found.collection.kind,
    userId: found.collection.userId,
    scopes: parseScopes(found.key.scopes),
    expires: found.key.expiresAt ? Date.parse(found.key.expiresAt) : Number.POSITIVE_INFINITY,
    keyAccess: keyAccessOf(found.key.filter),
    tokenSecret: found.key.tokenSecret,
  };
}
