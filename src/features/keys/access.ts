/**
 * What a key, or a tenant token minted from it, may see (docs/API.md, Access rules): the
 * key's own `filter`, and for a token its `filter` and the `_access` rule, each compiled
 * by the query filter's compiler and ANDed, as SQL over the chunk table. Every query, MCP
 * call and read made with the key or token is held to it before ranking; the caller's own
 * filter can only narrow it further.
 */
import { ACCESS_KEY } from "../../core/metadata";
import { AppError } from "../../http/errors";
import { compileMetadataFilter } from "../../retrieval/filter";
import { RetrievalError } from "../../retrieval/errors";

/** What a token adds to its key's filter. */
export interface TokenAccess {
  filter?: unknown;
  /** Who the token speaks for: matched against each source's `_access` list. */
  principals: string[];
}

/**
 * A key's filter as stored (JSON), or null for none; a filter the query endpoint would
 * refuse is refused here (400 naming `filter`).
 */
export function storedKeyFilter(input: unknown): string | null {
  if (input === undefined || input === null) return null;
  compiled(input, "filter");
  return JSON.stringify(input);
}

/** A key's stored filter as SQL, once, when its grant is cached (not on every request); null: none. */
export function keyAccessOf(storedFilter: string | null): string | null {
  if (storedFilter === null) return null;
  const sql = compiled(JSON.parse(storedFilter), "key filter");
  return sql === "true" ? null : sql;
}

/** The SQL a key (its keyAccessOf) and, when given, a token of it are held to; null: everything. */
export function accessWhere(keyAccess: string | null, token?: TokenAccess): string | null {
  const parts: string[] = [];
  if (keyAccess !== null) parts.push(keyAccess);
  if (token) {
    if (token.filter !== undefined) parts.push(compiled(token.filter, "token filter"));
    parts.push(compiled(accessRule(token.principals), "token principals"));
  }
  const present = parts.filter((p) => p !== "true");
  return present.length ? present.map((p) => `(${p})`).join(" AND ") : null;
}

/** A chunk is visible to a token when its source's `_access` shares an element with the principals, or it has none. */
function accessRule(principals: string[]): unknown {
  const open = { [ACCESS_KEY]: { $exists: false } };
  return principals.length ? { $or: [{ [ACCESS_KEY]: { $in: principals } }, open] } : open;
}

function compiled(filter: unknown, what: string): string {
  try {
    return compileMetadataFilter(filter, what) ?? "true";
  } catch (err) {
    if (err instanceof RetrievalError && err.field)
      throw new AppError("invalid_request", err.message, [{ field: err.field.field, message: err.field.message }]);
    throw err;
  }
}
