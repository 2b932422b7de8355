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
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Db } from "../../db/client";
import type { Logger } from "../../log";
import { version } from "../../version";
import type { QueryService } from "../query/service";
import type { SourceReader } from "./source-text";
import { registerTools, type ToolContext } from "./tools";

export interface McpDeps {
  queries: QueryService;
  reader: SourceReader;
  db: Db;
  log: Logger;
}

const INSTRUCTIONS =
  "Tools over one ragd pipeline (a searchable collection of documents). Use search to find passages, " +
  "read to see the text around a passage, list_sources to see what the collection holds, list_metadata to see " +
  "the metadata keys search's filter can narrow on.";

export function mcpRoutes(d: McpDeps) {
  return new Elysia({ tags: ["MCP"] })
    .derive({ as: "local" }, ({ request }) => ({ pipeline: d.queries.admit(request.headers.get("authorization")) }))
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

/** One MCP exchange: a fresh server bound to the key's pipeline answers one POST. */
async function answer(request: Request, body: unknown, ctx: ToolContext): Promise<Response> {
  const server = new McpServer({ name: "ragd", version }, { instructions: INSTRUCTIONS });
  registerTools(server, ctx);
  // JSON responses rather than an event stream: every tool answers in one piece.
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body });
  } finally {
    void server.close();
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
