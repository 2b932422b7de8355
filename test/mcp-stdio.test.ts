/**
 * `ragd mcp`, the stdio bridge: the official SDK's stdio client launches the
 * compiled binary, which forwards to a running server (docs/API.md, MCP).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { tempDir } from "./support/app";
import { BINARY, ensureBinary, runCli, startBinary, type RunningBinary } from "./support/binary";
import { jsonOf, type Tenant, tenant } from "./support/mcp";

const FACT = "Invoices above 5,000 euros need the signature of Margarethe Quill.";

let dataDir: string;
let server: RunningBinary;
let a: Tenant;

beforeAll(async () => {
  await ensureBinary();
  dataDir = tempDir("ragd-mcp-stdio-");
  server = await startBinary(dataDir);
  a = await tenant(server, "carol", {
    Finance: `Expenses are filed monthly.\n\n${FACT}\n\nReceipts are kept for ten years.`,
  });
}, 120_000);

afterAll(() => {
  server?.proc.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

async function launch(args: string[], env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "ragd-stdio-test", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: BINARY,
    args: ["mcp", ...args],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    stderr: "pipe",
  });
  await client.connect(transport);
  return client;
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
};

/** Writes `lines` to the bridge's stdin and closes it, as `printf ... | ragd mcp` does. */
async function pipe(args: string[], lines: unknown[]): Promise<{ code: number; messages: any[] }> {
  const p = Bun.spawn([BINARY, "mcp", ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  p.stdin.write(lines.map((l) => `${typeof l === "string" ? l : JSON.stringify(l)}\n`).join(""));
  await p.stdin.end();
  const timer = setTimeout(() => p.kill("SIGKILL"), 20_000);
  const [code, text] = await Promise.all([p.exited, new Response(p.stdout).text()]);
  clearTimeout(timer);
  return {
    code,
    messages: text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
  };
}

describe("ragd mcp (stdio bridge)", () => {
  test("with --url and --key: the same tools, and search finds the fact", async () => {
    const client = await launch(["--url", server.url, "--key", a.key]);
    try {
      expect(client.getServerVersion()?.name).toBe("ragd");
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["search", "read", "list_sources"]));
      const hit = jsonOf(await client.callTool({ name: "search", arguments: { query: "who signs large invoices" } }))
        .results[0];
      expect(hit).toMatchObject({ sourceId: a.sources.Finance, sourceName: "Finance" });
      expect(hit.text).toContain("Margarethe Quill");
      const span = jsonOf(await client.callTool({ name: "read", arguments: { sourceId: hit.sourceId } }));
      expect(span.text).toContain(FACT);
    } finally {
      await client.close();
    }
  });

  test("with the key in RAGD_API_KEY (kept out of process listings)", async () => {
    const client = await launch(["--url", server.url], { RAGD_API_KEY: a.key });
    try {
      expect(jsonOf(await client.callTool({ name: "list_sources", arguments: {} })).total).toBe(1);
    } finally {
      await client.close();
    }
  });

  test("a bad key fails the handshake with the server's sentence", async () => {
    await expect(launch(["--url", server.url, "--key", `rag_${"z".repeat(40)}`])).rejects.toThrow(
      /invalid_api_key: unknown or revoked API key/,
    );
  });

  test("a server that cannot be reached fails the handshake and says where it looked", async () => {
    await expect(launch(["--url", "http://127.0.0.1:9", "--key", a.key])).rejects.toThrow(
      /cannot reach ragd at http:\/\/127\.0\.0\.1:9\/mcp/,
    );
  });

  test("it exits 0 when its standard input closes", async () => {
    const p = Bun.spawn([BINARY, "mcp", "--url", server.url], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", RAGD_API_KEY: a.key },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const code = await Promise.race([p.exited, Bun.sleep(10_000).then(() => "still running")]);
    if (code === "still running") p.kill("SIGKILL");
    expect(code).toBe(0);
  });

  test("piped input: every request read is answered before it exits, in any order", async () => {
    const out = await pipe(
      ["--url", server.url, "--key", a.key],
      [
        INITIALIZE,
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "list_sources", arguments: {} } },
      ],
    );
    expect(out.code).toBe(0);
    const byId = new Map(out.messages.map((m) => [m.id, m]));
    expect(out.messages).toHaveLength(3);
    expect(byId.get(1)?.result?.serverInfo?.name).toBe("ragd");
    expect(byId.get(2)?.result?.tools.map((t: { name: string }) => t.name)).toContain("search");
    expect(JSON.parse(byId.get(3)?.result?.content[0].text).total).toBe(1);
  });

  test.each([
    ["a bad key", () => ["--url", server.url, "--key", `rag_${"z".repeat(40)}`], /invalid_api_key/],
    ["an unreachable server", () => ["--url", "http://127.0.0.1:9", "--key", a.key], /cannot reach ragd/],
  ])("piped input with %s: the request gets an error answer", async (_what, args, sentence) => {
    const out = await pipe(args(), [INITIALIZE]);
    expect(out.code).toBe(0);
    expect(out.messages).toHaveLength(1);
    expect(out.messages[0]).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32000 } });
    expect(out.messages[0].error.message).toMatch(sentence);
  });

  test("a line that is not JSON gets a parse error; JSON that is not JSON-RPC an invalid request", async () => {
    const out = await pipe(["--url", server.url, "--key", a.key], ["{not json", { id: 7, hello: "x" }, INITIALIZE]);
    expect(out.code).toBe(0);
    expect(out.messages).toContainEqual({ jsonrpc: "2.0", id: null, error: expect.objectContaining({ code: -32700 }) });
    expect(out.messages).toContainEqual({ jsonrpc: "2.0", id: 7, error: expect.objectContaining({ code: -32600 }) });
    expect(out.messages.find((m) => m.id === 1)?.result?.serverInfo?.name).toBe("ragd");
  });

  test("no key at all exits 2 with one line", () => {
    const r = runCli(["mcp", "--url", server.url]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("RAGD_API_KEY");
  });
});
