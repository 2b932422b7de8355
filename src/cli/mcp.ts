/**
 * `ragd mcp`: a stdio bridge for MCP clients that can only launch a local command.
 * It reads JSON-RPC messages on stdin, one a line, forwards each to a running
 * server's /mcp with the API key, and writes the answers to stdout; it has no tools
 * of its own, so it offers exactly what the server offers. Logs go to stderr
 * (stdout is the protocol's). At the end of its input it answers every request it
 * read before exiting (docs/API.md, MCP), so piped input works like a client.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import type { BridgeConfig } from "../config-bridge";

type Id = string | number;

/** Runs until stdin closes and every request read has its answer; resolves with the exit code. */
export async function mcpCommand(cfg: BridgeConfig): Promise<number> {
  const endpoint = new URL(cfg.url.endsWith("/mcp") ? cfg.url : `${cfg.url}/mcp`);
  const remote = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: { authorization: `Bearer ${cfg.key}` } },
  });
  /** Requests forwarded and not yet answered, by id. */
  const waiting = new Map<Id, () => void>();
  /** Every message in flight and every write to stdout, awaited before exiting. */
  const inFlight = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  const write = (msg: object) =>
    track(new Promise<void>((done) => process.stdout.write(`${JSON.stringify(msg)}\n`, () => done())));
  const answered = (id: Id) => {
    waiting.get(id)?.();
    waiting.delete(id);
  };

  remote.onmessage = (msg) => {
    // Later requests carry the negotiated version, as the protocol asks of clients.
    const version = (msg as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
    if (typeof version === "string") remote.setProtocolVersion(version);
    write(msg);
    if ("id" in msg && !("method" in msg)) answered(msg.id as Id);
  };
  remote.onerror = (err) => console.error(`ragd mcp: ${err.message}`);

  // Messages after `initialize` wait for its answer, which sets the protocol version.
  let gate: Promise<unknown> = Promise.resolve();
  const forward = (msg: JSONRPCMessage) => {
    const isRequest = "id" in msg && "method" in msg;
    const answer = isRequest ? new Promise<void>((done) => waiting.set(msg.id, done)) : Promise.resolve();
    const sent = gate
      .then(() => remote.send(msg))
      .catch((err: unknown) => {
        const message = failureOf(err, endpoint);
        console.error(`ragd mcp: ${message}`);
        // A request must get an answer, or the client waits for ever.
        if (isRequest) {
          write(errorReply(msg.id, -32000, message));
          answered(msg.id);
        }
      });
    if (isRequest && msg.method === "initialize") gate = answer;
    track(Promise.all([sent, answer]));
  };

  await remote.start();
  await readLines(process.stdin, (line) => {
    const parsed = parseMessage(line);
    if ("refusal" in parsed) write(parsed.refusal);
    else forward(parsed.message);
  });
  while (inFlight.size) await Promise.all([...inFlight]);
  await remote.close();
  return 0;
}

/** Calls `onLine` for each non-blank line of `input`; resolves when the input ends. */
function readLines(input: NodeJS.ReadableStream, onLine: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    input.setEncoding("utf8");
    input.on("data", (chunk: string) => {
      buffered += chunk;
      let nl = buffered.indexOf("\n");
      while (nl >= 0) {
        const line = buffered.slice(0, nl).replace(/\r$/, "");
        buffered = buffered.slice(nl + 1);
        if (line.trim()) onLine(line);
        nl = buffered.indexOf("\n");
      }
    });
    input.once("end", () => {
      if (buffered.trim()) onLine(buffered);
      resolve();
    });
    input.once("error", reject);
  });
}

/**
 * A line as a JSON-RPC message, or the error reply it earns: -32700 when it is not
 * JSON, -32600 when it is JSON but not a JSON-RPC message (JSON-RPC 2.0, section 5.1).
 */
function parseMessage(line: string): { message: JSONRPCMessage } | { refusal: ReturnType<typeof errorReply> } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { refusal: errorReply(null, -32700, "Parse error: the line is not JSON") };
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { message: parsed.data };
  const id = (value as { id?: unknown } | null)?.id;
  const known = typeof id === "string" || typeof id === "number" ? id : null;
  return { refusal: errorReply(known, -32600, "Invalid Request: not a JSON-RPC 2.0 message") };
}

function errorReply(id: Id | null, code: number, message: string) {
  return { jsonrpc: "2.0" as const, id, error: { code, message } };
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
