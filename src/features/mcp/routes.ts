/**
 * POST /mcp: the Model Context Protocol over its Streamable HTTP transport
 * (docs/API.md, MCP). The caller's pipeline API key is checked by the query
 * endpoint's own door (QueryService.admitKey: revocation, rate limit, one query per
 * message of a batch) on every HTTP request, before any MCP message is run, so a bad
 * key is a plain 401 with the error body. The key is asked again before each tool call
 * and before the answer leaves, and its revocation here ends the exchange at once.
 *
 * Stateless: each POST gets its own server and transport, and no session id is
 * issued. The tools keep no state between calls, so sessions would buy nothing but
 * memory to expire; any instance can answer any request.
 */
import { Elysia } from "elysia";
import type { Store } from "../../db/store";
import { AppError } from "../../http/errors";
import type { Logger } from "../../log";
import type { KeyService } from "../keys/service";
import type { QueryService } from "../query/service";
import type { SourceReader } from "./source-text";
import type { ToolContext } from "./tools";

export interface McpDeps {
  queries: QueryService;
  keys: KeyService;
  reader: SourceReader;
  db: Store;
  log: Logger;
  /** ragd's public address (RAGD_PUBLIC_URL or where it listens): results link to their dashboard pages. */
  baseUrl?: () => string;
}

export function mcpRoutes(d: McpDeps) {
  return new Elysia({ tags: ["MCP"] })
    .derive({ as: "local" }, async ({ request, body }) =>
      d.queries.admitKey(request.headers.get("authorization"), messageCount(body), "any"),
    )
    .post(
      "/mcp",
      ({ request, body, collection, keyId, access }) => held(d, request, body, { collection, keyId, access }),
      {
        detail: {
          summary: "Model Context Protocol (Streamable HTTP, stateless)",
          description: "JSON-RPC messages of the Model Context Protocol; see the MCP section of the API guide.",
          security: [{ apiKey: [] }],
        },
      },
    )
    .get("/mcp", notAllowed, { detail: { hide: true } })
    .delete("/mcp", notAllowed, { detail: { hide: true } });
}

/** Each JSON-RPC message counts as one query; a body that is no batch is one message. */
const messageCount = (body: unknown) => (Array.isArray(body) ? Math.max(1, body.length) : 1);

/**
 * One MCP exchange while its key holds, through the protocol code loaded on first use
 * (exchange.ts says why): revoked here, it is cut short with the key's 401 at once.
 */
async function held(
  d: McpDeps,
  request: Request,
  body: unknown,
  { collection, keyId, access }: Pick<ToolContext, "collection" | "access"> & { keyId: string },
): Promise<Response> {
  const authorization = request.headers.get("authorization");
  const recheck = () => d.keys.authorize(authorization, "query");
  const hold = d.keys.hold(keyId);
  try {
    const exchange = await import("./exchange");
    const answered = exchange.answer(request, body, { ...d, collection, keyId, access, recheck });
    answered.catch(() => {}); // when the revocation answered first
    const revoked = new Promise<never>((_, reject) => {
      const refuse = () => reject(new AppError("invalid_api_key", "unknown or revoked API key"));
      if (hold.signal.aborted) refuse();
      hold.signal.addEventListener("abort", refuse, { once: true });
    });
    const res = await Promise.race([answered, revoked]);
    await recheck(); // nothing leaves for a key that expired or was revoked elsewhere meanwhile
    return res;
  } finally {
    hold.release();
  }
}

/** No server-initiated stream and no sessions to end, so only POST is served (clients expect 405 here). */
function notAllowed(): Response {
  const error = {
    code: "method_not_allowed",
    message: "the MCP endpoint takes POST only (stateless, no event stream)",
  };
  return new Response(JSON.stringify({ error }), {
    status: 405,
    headers: { "content-type": "application/json", allow: "POST" },
  });
}
