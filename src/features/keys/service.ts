/**
 * Per-pipeline API keys: `rag_` + 40 base62 characters, only the SHA-256 stored,
 * the first 12 characters kept as the visible prefix. Lookups are cached by hash
 * and the cache entry goes the moment a key is revoked. Last-used times are
 * gathered in memory and written in batches (flush), never once per query.
 * Each key carries scopes (what it may do) and an optional expiry; `authorize`
 * is the one check every key-authenticated route makes (docs/API.md, API keys).
 */
import {
  deleteApiKey,
  findApiKey,
  findApiKeyByHash,
  insertApiKey,
  listApiKeys,
  touchApiKeys,
} from "../../db/repo/api-keys";
import { findCollectionById } from "../../db/repo/collections";
import { findUserState } from "../../db/repo/users";
import type { ApiKey } from "../../db/schema";
import type { Store } from "../../db/store";
import { parseDateTime } from "../../http/date-time";
import { AppError, notFound } from "../../http/errors";
import { randomBase62, sha256 } from "../../tools/crypto";

export const KEY_PREFIX = "rag_";
const KEY_BODY_LENGTH = 40;
const VISIBLE_PREFIX = 12;
const CACHE_MAX = 10_000;
const KEY_SHAPE = /^rag_[0-9A-Za-z]{40,200}$/;

export const KEY_SCOPES = ["query", "ingest"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export interface PublicKey {
  id: string;
  name: string;
  prefix: string;
  scopes: KeyScope[];
  expiresAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

/** What a presented key may do, as cached by its hash. */
interface Grant {
  keyId: string;
  collectionId: string;
  /** The pipeline's owner: a disabled owner's keys stop answering. */
  userId: string;
  scopes: KeyScope[];
  /** Epoch milliseconds; Infinity when the key never expires. */
  expires: number;
}

/** Reads the stored scopes; a damaged value grants nothing. */
function parseScopes(json: string): KeyScope[] {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.filter((s): s is KeyScope => (KEY_SCOPES as readonly string[]).includes(s)) : [];
  } catch {
    return [];
  }
}

const field = (name: string, message: string) =>
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
function shapeProblem(raw: string): string {
  if (!raw.startsWith(KEY_PREFIX)) return "that is not a ragd API key (they start with rag_)";
  const tail = raw.slice(KEY_PREFIX.length);
  const shape = `a ragd key is rag_ followed by ${KEY_BODY_LENGTH} letters and digits`;
  if (tail.length < KEY_BODY_LENGTH && /^[0-9A-Za-z]*$/.test(tail))
    return `that API key is incomplete: ${shape}, and this one has only ${tail.length} (was it cut short when copied?)`;
  return `that API key is malformed: ${shape}`;
}

export class KeyService {
  private readonly cache = new Map<string, Grant>();
  private pending = new Map<string, string>();
  /**
   * Counts revocations and forgotten collections: a lookup read before one of them
   * and answered after it is not cached, so a revoked key cannot come back.
   */
  private forgets = 0;
  /** Work in flight on a key's behalf (event streams, MCP exchanges), ended when it is revoked here. */
  private readonly held = new Map<string, Set<AbortController>>();

  constructor(
    private readonly db: Store,
    /**
     * False for replicas: a key revoked through another process must be refused here on
     * its next use, and a lookup by hash is one indexed read (the owner's state is read on
     * every use anyway).
     */
    private readonly caching = true,
  ) {}

  /**
   * Creates a key; the raw key is in the result and nowhere else, ever. Scopes and
   * expiry are checked here; 404 when the pipeline is gone (deleted since its check).
   */
  async create(
    collectionId: string,
    name: string,
    opts: { scopes?: unknown; expiresAt?: unknown } = {},
  ): Promise<PublicKey & { key: string }> {
    const scopes = checkScopes(opts.scopes);
    const expiresAt = checkExpiry(opts.expiresAt);
    const key = KEY_PREFIX + randomBase62(KEY_BODY_LENGTH);
    const row: ApiKey = {
      id: Bun.randomUUIDv7(),
      collectionId,
      name,
      prefix: key.slice(0, VISIBLE_PREFIX),
      keyHash: sha256(key),
      createdAt: new Date().toISOString(),
      lastUsedAt: null,
      scopes: JSON.stringify(scopes),
      expiresAt,
    };
    await this.db.atomically(async (tx) => {
      if (!(await findCollectionById(tx, collectionId))) throw notFound("pipeline");
      await insertApiKey(tx, row);
    });
    return { ...this.present(row), key };
  }

  async list(collectionId: string): Promise<PublicKey[]> {
    return (await listApiKeys(this.db.reader, collectionId)).map((k) => this.present(k));
  }

  /** Revokes a key: the row and the cache entry go at once. */
  async revoke(collectionId: string, keyId: string): Promise<{ deleted: true; id: string }> {
    const row = await this.db.atomically(async (tx) => {
      const found = await findApiKey(tx, collectionId, keyId);
      if (!found) throw notFound("API key");
      await deleteApiKey(tx, keyId);
      return found;
    });
    this.forgets++;
    this.cache.delete(row.keyHash);
    this.pending.delete(keyId);
    for (const c of this.held.get(keyId) ?? []) c.abort();
    this.held.delete(keyId);
    return { deleted: true, id: keyId };
  }

  /**
   * A signal that aborts when `keyId` is revoked in this process, for work that outlives
   * its request's check; `release` when the work ends. Another process's revocation, an
   * expiry or a disabled owner is found by asking `allows` again (docs/API.md, API keys).
   */
  hold(keyId: string): { signal: AbortSignal; release: () => void } {
    const c = new AbortController();
    const set = this.held.get(keyId) ?? new Set();
    this.held.set(keyId, set.add(c));
    const release = () => {
      set.delete(c);
      if (set.size === 0 && this.held.get(keyId) === set) this.held.delete(keyId);
    };
    return { signal: c.signal, release };
  }

  /** Whether `authorize(authorization, scope)` still lets the key in; a failure to read the database throws. */
  async allows(authorization: string | null, scope: KeyScope): Promise<boolean> {
    try {
      await this.authorize(authorization, scope);
      return true;
    } catch (err) {
      if (err instanceof AppError) return false;
      throw err;
    }
  }

  /** Drops cached lookups of a deleted collection. */
  forgetCollection(collectionId: string): void {
    this.forgets++;
    for (const [hash, v] of this.cache) if (v.collectionId === collectionId) this.cache.delete(hash);
  }

  /**
   * The one check of a key-authenticated route: the key id and pipeline id behind
   * `Authorization: Bearer rag_…` when the key is known, unexpired and holds `scope`;
   * otherwise invalid_api_key (401), account_disabled (401) or insufficient_scope (403).
   */
  async authorize(authorization: string | null, scope: KeyScope): Promise<{ keyId: string; collectionId: string }> {
    const grant = await this.lookup(authorization);
    await this.checkOwner(grant);
    if (Date.now() >= grant.expires)
      throw new AppError("invalid_api_key", `this API key expired at ${new Date(grant.expires).toISOString()}`);
    if (!grant.scopes.includes(scope))
      throw new AppError(
        "insufficient_scope",
        `this API key lacks the "${scope}" scope (it has: ${grant.scopes.join(", ") || "none"}); create a key with it`,
      );
    this.pending.set(grant.keyId, new Date().toISOString());
    return { keyId: grant.keyId, collectionId: grant.collectionId };
  }

  /** authorize() for the query scope, for callers that predate scopes (the query scope is what they served). */
  authenticate(authorization: string | null): Promise<{ keyId: string; collectionId: string }> {
    return this.authorize(authorization, "query");
  }

  /**
   * The owner's state is read on every use, not cached: `ragd user disable` in another
   * process must stop the key at once (a prepared primary-key read, a few microseconds).
   */
  private async checkOwner(grant: Grant): Promise<void> {
    const owner = await findUserState(this.db.reader, grant.userId);
    if (!owner) {
      this.forgetCollection(grant.collectionId);
      throw new AppError("invalid_api_key", "unknown or revoked API key");
    }
    if (owner.disabledAt)
      throw new AppError("account_disabled", "the account that owns this API key is disabled; ask an administrator");
  }

  /** The grant behind a presented key; invalid_api_key when it is missing, malformed, unknown or revoked. */
  private async lookup(authorization: string | null): Promise<Grant> {
    const raw = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
    if (!raw) throw new AppError("invalid_api_key", "send the pipeline's API key as Authorization: Bearer rag_…");
    if (!KEY_SHAPE.test(raw)) throw new AppError("invalid_api_key", shapeProblem(raw));
    const hash = sha256(raw);
    const cached = this.cache.get(hash);
    if (cached) return cached;
    const forgets = this.forgets;
    const found = await findApiKeyByHash(this.db.reader, hash);
    if (!found) throw new AppError("invalid_api_key", "unknown or revoked API key");
    const hit: Grant = {
      keyId: found.key.id,
      collectionId: found.collection.id,
      userId: found.collection.userId,
      scopes: parseScopes(found.key.scopes),
      expires: found.key.expiresAt ? Date.parse(found.key.expiresAt) : Number.POSITIVE_INFINITY,
    };
    // Answered as read; kept only when nothing was revoked while it was read.
    if (this.caching && forgets === this.forgets) {
      if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(hash, hit);
    }
    return hit;
  }

  /** Writes the gathered last-used times; called on a timer and at shutdown. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    await this.db.atomically((tx) => touchApiKeys(tx, batch));
  }

  private present(k: ApiKey): PublicKey {
    return {
      id: k.id,
      name: k.name,
      prefix: k.prefix,
      scopes: parseScopes(k.scopes),
      expiresAt: k.expiresAt,
      createdAt: k.createdAt,
      lastUsedAt: this.pending.get(k.id) ?? k.lastUsedAt,
    };
  }
}
