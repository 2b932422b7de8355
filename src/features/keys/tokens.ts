/**
 * Tenant tokens (docs/API.md, Tenant tokens): JWTs an application mints for its end users,
 * without calling ragd, with the token secret of a key that has the `tokens` scope. HS256
 * only; `key` names the key by id, `exp` is required; `filter` and `principals` narrow what
 * the token sees (access.ts). Verified with jose. A token only ever queries.
 */
import { decodeJwt, errors, jwtVerify } from "jose";
import { AppError } from "../../http/errors";
import type { TokenAccess } from "./access";

/** Three base64url parts, the first a JSON header: how a token is told from a `rag_` key. */
export const TOKEN_SHAPE = /^eyJ[A-Za-z0-9_-]{2,4000}\.[A-Za-z0-9_-]{2,16000}\.[A-Za-z0-9_-]{20,200}$/;

/**
 * Principals a token may name, and their length: a query filter's $in takes 100 values. A token
 * lives at most a day: its `exp` is a whole number of seconds no further ahead than that, with
 * a minute's leeway for an issuer whose clock runs ahead of ragd's.
 */
export const TOKEN_LIMITS = {
  principals: 100,
  principalChars: 200,
  lifetimeSeconds: 86_400,
  leewaySeconds: 60,
} as const;

const invalid = (message: string) => new AppError("invalid_api_key", message);

/** The key id a token names, read before its signature can be checked (the key holds the secret). */
export function tokenKeyId(raw: string): string {
  let key: unknown;
  try {
    key = decodeJwt(raw).key;
  } catch {
    throw invalid("that tenant token is not a JWT ragd can read");
  }
  if (typeof key !== "string" || !/^[0-9a-f-]{36}$/.test(key))
    throw invalid('a tenant token names its API key by id in the "key" claim');
  return key;
}

/** The token's access, once its signature (HS256, with `secret`) and expiry hold; invalid_api_key otherwise. */
export async function verifyToken(raw: string, secret: string): Promise<TokenAccess> {
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(raw, new TextEncoder().encode(secret), {
      algorithms: ["HS256"],
      requiredClaims: ["exp"],
    }));
  } catch (err) {
    if (err instanceof errors.JWTExpired) throw invalid("this tenant token has expired");
    throw invalid("this tenant token's signature or claims are not valid");
  }
  const exp = payload.exp as number;
  const latest = Date.now() / 1000 + TOKEN_LIMITS.lifetimeSeconds + TOKEN_LIMITS.leewaySeconds;
  if (!Number.isSafeInteger(exp) || exp > latest)
    throw invalid("a tenant token's exp is a whole number of seconds at most 24 hours ahead");
  return claims(payload);
}

/** The token's `filter` and `principals`, checked (a badly made token is the application's 400). */
function claims(payload: Record<string, unknown>): TokenAccess {
  const p = payload.principals ?? [];
  const limit = TOKEN_LIMITS;
  if (
    !Array.isArray(p) ||
    p.length > limit.principals ||
    p.some((x) => typeof x !== "string" || x.length === 0 || x.length > limit.principalChars)
  ) {
    const message = `must be an array of at most ${limit.principals} strings of 1–${limit.principalChars} characters`;
    throw new AppError("invalid_request", `token principals: ${message}`, [{ field: "principals", message }]);
  }
  return payload.filter === undefined ? { principals: p } : { filter: payload.filter, principals: p };
}
