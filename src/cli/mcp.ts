/**
 * `ragd mcp`: a stdio bridge for MCP clients that can only launch a local command.
 * It reads JSON-RPC messages on stdin, forwards each to a running server's /mcp
 * with the API key, and writes the answers to stdout; it has no tools of its own,
 * so it offers exactly what the server offers. Logs go to stderr (stdout is the
 * protocol's).
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { BridgeConfig } from "../config";

/** Runs until stdin closes; resolves with the exit code. */
export function mcpCommand(cfg: BridgeConfig): Promise<number> {
  const endpoint = new URL(cfg.url.endsWith("/mcp") ? cfg.url : `${cfg.url}/mcp`);
  const remote = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: { authorization: `Bearer ${cfg.key}` } },
  });
  const local = new StdioServerTransport();
  remote.onmessage = (msg) => {
    // Later requests carry the negotiated version, as the protocol asks of clients.
    const version = (msg as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
    if (typeof version === "string") remote.setProtocolVersion(version);
    void local.send(msg);
  };
  remote.onerror = (err) => console.error(`ragd mcp: ${err.message}`);
  local.onmessage = (msg) => {
    remote.send(msg).catch((err: unknown) => {
      const message = failureOf(err, endpoint);
      console.error(`ragd mcp: ${message}`);
      // A request must get an answer, or the client waits for ever.
      if ("id" in msg && "method" in msg) void local.send(errorReply(msg.id, message));
    });
  };
  return new Promise((resolve) => {
    const stop = () => {
      void remote.close();
      resolve(0);
    };
    local.onclose = stop;
    process.stdin.once("end", stop);
    void remote.start().then(() => local.start());
  });
}

function errorReply(id: string | number, message: string): JSONRPCMessage {
  return { jsonrpc: "2.0", id, error: { code: -32000, message } };
}

/** The server's own sentence when it refused the request (its error body), else what went wrong. */
function failureOf(err: unknown, endpoint: URL): string {
  const text = err instanceof Error ? err.message : String(err);
  const body = /\{.*\}\s*$/s.exec(text)?.[0];
  if (body) {
    try {
      const e = (JSON.parse(body) as { error?: { code?: string; message?: string } }).error;
      if (e?.message) return `${endpoint.origin} answered ${e.code}: ${e.message}`;
    } catch {
      // not the server's error body; fall through
    }
  }
  return `cannot reach ragd at ${endpoint.href}: ${text}`;
}
