/**
 * Per-pipeline API keys: `rag_` + 40 base62 characters, only the SHA-256 stored,
 * the first 12 characters kept as the visible prefix. Lookups are cached by hash
 * and the cache entry goes the moment a key is revoked. Last-used times are
 * gathered in memory and written in batches (flush), never once per query.
 */
import type { Db } from "../../db/client";
import {
  deleteApiKey,
  findApiKey,
  findApiKeyByHash,
  insertApiKey,
  listApiKeys,
  touchApiKeys,
} from "../../db/queries/api-keys";
import type { ApiKey } from "../../db/schema";
import { AppError, notFound } from "../../http/errors";
import { randomBase62, sha256 } from "../../tools/crypto";

export const KEY_PREFIX = "rag_";
const KEY_BODY_LENGTH = 40;
const VISIBLE_PREFIX = 12;
const CACHE_MAX = 10_000;
const KEY_SHAPE = /^rag_[0-9A-Za-z]{40,200}$/;

export interface PublicKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
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
  private readonly cache = new Map<string, { keyId: string; collectionId: string }>();
  private pending = new Map<string, string>();

  constructor(private readonly db: Db) {}

  /** Creates a key; the raw key is in the result and nowhere else, ever. */
  create(collectionId: string, name: string): PublicKey & { key: string } {
    const key = KEY_PREFIX + randomBase62(KEY_BODY_LENGTH);
    const row: ApiKey = {
      id: Bun.randomUUIDv7(),
      collectionId,
      name,
      prefix: key.slice(0, VISIBLE_PREFIX),
      keyHash: sha256(key),
      createdAt: new Date().toISOString(),
      lastUsedAt: null,
      scopes: '["query"]',
      expiresAt: null,
    };
    insertApiKey(this.db, row);
    return { ...this.present(row), key };
  }

  list(collectionId: string): PublicKey[] {
    return listApiKeys(this.db, collectionId).map((k) => this.present(k));
  }

  /** Revokes a key: the row and the cache entry go at once. */
  revoke(collectionId: string, keyId: string): { deleted: true; id: string } {
    const row = findApiKey(this.db, collectionId, keyId);
    if (!row) throw notFound("API key");
    deleteApiKey(this.db, keyId);
    this.cache.delete(row.keyHash);
    this.pending.delete(keyId);
    return { deleted: true, id: keyId };
  }

  /** Drops cached lookups of a deleted collection. */
  forgetCollection(collectionId: string): void {
    for (const [hash, v] of this.cache) if (v.collectionId === collectionId) this.cache.delete(hash);
  }

  /** The key id and pipeline id behind a raw key; invalid_api_key otherwise. */
  authenticate(authorization: string | null): { keyId: string; collectionId: string } {
    const raw = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
    if (!raw) throw new AppError("invalid_api_key", "send the pipeline's API key as Authorization: Bearer rag_…");
    if (!KEY_SHAPE.test(raw)) throw new AppError("invalid_api_key", shapeProblem(raw));
    const hash = sha256(raw);
    let hit = this.cache.get(hash);
    if (!hit) {
      const found = findApiKeyByHash(this.db, hash);
      if (!found) throw new AppError("invalid_api_key", "unknown or revoked API key");
      hit = { keyId: found.key.id, collectionId: found.collection.id };
      if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(hash, hit);
    }
    this.pending.set(hit.keyId, new Date().toISOString());
    return hit;
  }

  /** Writes the gathered last-used times; called on a timer and at shutdown. */
  flush(): void {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    touchApiKeys(this.db, batch);
  }

  private present(k: ApiKey): PublicKey {
    return {
      id: k.id,
      name: k.name,
      prefix: k.prefix,
      createdAt: k.createdAt,
      lastUsedAt: this.pending.get(k.id) ?? k.lastUsedAt,
    };
  }
}
