/**
 * POST /mcp: the Model Context Protocol over its Streamable HTTP transport
 * (docs/API.md, MCP). The caller's pipeline API key is checked by the query
 * endpoint's own door (QueryService.admit: revocation, rate limit) on every HTTP
 * request, before any MCP message is read, so a bad key is a plain 401 with the
 * error body and a key revoked mid-conversation fails the next call.
 *
 * Stateless: each POST gets its own server and transport, and no session id is
 * issued. The tools keep no state between calls, so sessions would buy nothing but
 * memory to expire; any instance can answer any request.
 */
import { Elysia } from "elysia";
import type { Store } from "../../db/store";
import type { Logger } from "../../log";
import type { QueryService } from "../query/service";
import type { SourceReader } from "./source-text";
import type { ToolContext } from "./tools";

export interface McpDeps {
  queries: QueryService;
  reader: SourceReader;
  db: Store;
  log: Logger;
}

export function mcpRoutes(d: McpDeps) {
  return new Elysia({ tags: ["MCP"] })
    .derive({ as: "local" }, async ({ request }) => ({
      pipeline: await d.queries.admit(request.headers.get("authorization")),
    }))
    .post("/mcp", ({ request, body, pipeline }) => answer(request, body, { ...d, collection: pipeline }), {
      detail: {
        summary: "Model Context Protocol (Streamable HTTP, stateless)",
        description: "JSON-RPC messages of the Model Context Protocol; see the MCP section of the API guide.",
        security: [{ apiKey: [] }],
      },
    })
    .get("/mcp", notAllowed, { detail: { hide: true } })
    .delete("/mcp", notAllowed, { detail: { hide: true } });
}

/** One MCP exchange, through the protocol code loaded on first use (exchange.ts says why). */
async function answer(request: Request, body: unknown, ctx: ToolContext): Promise<Response> {
  const exchange = await import("./exchange");
  return exchange.answer(request, body, ctx);
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
