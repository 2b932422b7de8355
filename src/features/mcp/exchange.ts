/**
 * One MCP exchange (see routes.ts): the SDK's server and web-standard transport,
 * with ragd's tools. Loaded on the first /mcp request, not at start-up: the SDK,
 * zod and the tool schemas take about 0.3 s to load, a large share of ragd's start.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { version } from "../../version";
import { registerTools, type ToolContext } from "./tools";

const INSTRUCTIONS =
  "Tools over one ragd pipeline (a searchable collection of documents). Use search to find passages, " +
  "read to see the text around a passage, list_sources to see what the collection holds, list_metadata to see " +
  "the metadata keys search's filter can narrow on.";

/** One MCP exchange: a fresh server bound to the key's pipeline answers one POST. */
export async function answer(request: Request, body: unknown, ctx: ToolContext): Promise<Response> {
  const server = new McpServer({ name: "ragd", version }, { instructions: INSTRUCTIONS });
  await registerTools(server, ctx);
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
