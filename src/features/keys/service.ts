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
  findApiKeyById,
  insertApiKey,
  listApiKeys,
  touchApiKeys,
} from "../../db/repo/api-keys";
import { findCollectionById } from "../../db/repo/collections";
import { findUserState } from "../../db/repo/users";
import type { ApiKey } from "../../db/schema";
import type { Store } from "../../db/store";
import { AppError, notFound } from "../../http/errors";
import { randomBase62, sha256 } from "../../tools/crypto";
import {
  CACHE_MAX,
  checkExpiry,
  checkScopes,
  field,
  type Grant,
  grantOf,
  KEY_BODY_LENGTH,
  KEY_PREFIX,
  KEY_SHAPE,
  type KeyCaller,
  type KeyScope,
  parseScopes,
  type PublicKey,
  shapeProblem,
  VISIBLE_PREFIX,
} from "./rules";

export {
  checkExpiry,
  checkScopes,
  KEY_PREFIX,
  KEY_SCOPES,
  type KeyCaller,
  type KeyScope,
  type PublicKey,
} from "./rules";
import { accessWhere, storedKeyFilter } from "./access";
import { TOKEN_SHAPE, tokenKeyId, verifyToken } from "./tokens";

export class KeyService {
  private readonly cache = new Map<string, Grant>();
  /** The same grants by key id, for tenant tokens, which name their key. */
  private readonly byId = new Map<string, Grant>();
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
    opts: { scopes?: unknown; expiresAt?: unknown; filter?: unknown } = {},
  ): Promise<PublicKey & { key: string; tokenSecret?: string }> {
    const scopes = checkScopes(opts.scopes);
    const expiresAt = checkExpiry(opts.expiresAt);
    const filter = storedKeyFilter(opts.filter);
    if (filter !== null && scopes.includes("ingest"))
      throw field("filter", "a key with a filter only reads: it cannot have the ingest scope");
    const tokenSecret = scopes.includes("tokens") ? randomBase62(48) : null;
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
      filter,
      tokenSecret,
    };
    await this.db.atomically(async (tx) => {
      const owner = await findCollectionById(tx, collectionId);
      if (!owner) throw notFound("pipeline");
      // A knowledge base's documents are uploaded by its owner: its keys search and issue tokens.
      if (owner.kind === "kb" && scopes.includes("ingest"))
        throw field("scopes", 'a knowledge base\'s keys only search: use "query" (and "tokens")');
      await insertApiKey(tx, row);
    });
    return { ...this.present(row), key, ...(tokenSecret ? { tokenSecret } : {}) };
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
    this.byId.delete(keyId);
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
    for (const [id, v] of this.byId) if (v.collectionId === collectionId) this.byId.delete(id);
  }

  /**
   * The one check of a key-authenticated route: who is behind `Authorization: Bearer rag_…`
   * (or a tenant token of such a key) when the key is known, unexpired and holds `scope`,
   * and what they may see; otherwise invalid_api_key (401), account_disabled (401) or
   * insufficient_scope (403). A token only ever has the query scope.
   */
  async authorize(authorization: string | null, scope: KeyScope): Promise<KeyCaller> {
    const raw = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
    if (raw && TOKEN_SHAPE.test(raw)) return this.authorizeToken(raw, scope);
    const grant = await this.lookup(raw);
    await this.checkGrant(grant);
    if (!grant.scopes.includes(scope))
      throw new AppError(
        "insufficient_scope",
        `this API key lacks the "${scope}" scope (it has: ${grant.scopes.join(", ") || "none"}); create a key with it`,
      );
    this.pending.set(grant.keyId, new Date().toISOString());
    const access = accessWhere(grant.keyAccess);
    return { keyId: grant.keyId, collectionId: grant.collectionId, kind: grant.kind, access, token: false };
  }

  /** authorize() for a tenant token: its key must hold the tokens scope, its signature and expiry must hold. */
  private async authorizeToken(raw: string, scope: KeyScope): Promise<KeyCaller> {
    const grant = await this.lookupId(tokenKeyId(raw));
    if (!grant.scopes.includes("tokens") || grant.tokenSecret === null)
      throw new AppError("invalid_api_key", "the API key this token names does not issue tenant tokens");
    const claims = await verifyToken(raw, grant.tokenSecret);
    await this.checkGrant(grant);
    if (scope !== "query")
      throw new AppError(
        "insufficient_scope",
        "a tenant token can only query; writes need an API key with the ingest scope",
      );
    this.pending.set(grant.keyId, new Date().toISOString());
    const access = accessWhere(grant.keyAccess, claims);
    return { keyId: grant.keyId, collectionId: grant.collectionId, kind: grant.kind, access, token: true };
  }

  /** The key's owner may use it and the key has not expired. */
  private async checkGrant(grant: Grant): Promise<void> {
    await this.checkOwner(grant);
    if (Date.now() >= grant.expires)
      throw new AppError("invalid_api_key", `this API key expired at ${new Date(grant.expires).toISOString()}`);
  }

  /** authorize() for the query scope, for callers that predate scopes (the query scope is what they served). */
  authenticate(authorization: string | null): Promise<KeyCaller> {
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
  private async lookup(raw: string | undefined): Promise<Grant> {
    if (!raw) throw new AppError("invalid_api_key", "send the pipeline's API key as Authorization: Bearer rag_…");
    if (!KEY_SHAPE.test(raw)) throw new AppError("invalid_api_key", shapeProblem(raw));
    const hash = sha256(raw);
    const cached = this.cache.get(hash);
    if (cached) return cached;
    const forgets = this.forgets;
    const found = await findApiKeyByHash(this.db.reader, hash);
    if (!found) throw new AppError("invalid_api_key", "unknown or revoked API key");
    return this.remember(this.cache, hash, grantOf(found), forgets);
  }

  /** The grant of the key a tenant token names, by id; invalid_api_key when it is unknown or revoked. */
  private async lookupId(keyId: string): Promise<Grant> {
    const cached = this.byId.get(keyId);
    if (cached) return cached;
    const forgets = this.forgets;
    const found = await findApiKeyById(this.db.reader, keyId);
    if (!found) throw new AppError("invalid_api_key", "the API key this token names is unknown or revoked");
    return this.remember(this.byId, keyId, grantOf(found), forgets);
  }

  /** Answered as read; kept only when nothing was revoked while it was read. */
  private remember(cache: Map<string, Grant>, key: string, grant: Grant, forgets: number): Grant {
    if (this.caching && forgets === this.forgets) {
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
      cache.set(key, grant);
    }
    return grant;
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
      filter: k.filter === null ? null : JSON.parse(k.filter),
      createdAt: k.createdAt,
      lastUsedAt: this.pending.get(k.id) ?? k.lastUsedAt,
    };
  }
}
