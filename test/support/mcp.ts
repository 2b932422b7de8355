/**
 * Helpers of the MCP tests: a user with a pipeline, a key and sources, made over
 * the server's HTTP API, and an MCP client of the official SDK connected to it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { RunningBinary } from "./binary";
import { waitFor } from "./wait";

export interface Tenant {
  jar: { cookie?: string };
  pipelineId: string;
  key: string;
  /** Source ids by the name they were given. */
  sources: Record<string, string>;
}

/** Signs a new user up, creates a pipeline and a key, and adds text sources (waits until they are ready). */
export async function tenant(server: RunningBinary, tag: string, texts: Record<string, string>): Promise<Tenant> {
  const jar: { cookie?: string } = {};
  const email = `${tag}-${Date.now()}@example.com`;
  const signup = await server.http("/api/auth/signup", {
    method: "POST",
    json: { email, password: "password123" },
    jar,
  });
  if (signup.status !== 201) throw new Error(`signup: ${JSON.stringify(signup.body)}`);
  const p = await server.http("/api/rag/pipelines", { method: "POST", json: { name: `${tag} docs` }, jar });
  const pipelineId = p.body.id as string;
  const key = await newKey(server, jar, pipelineId);
  const sources: Record<string, string> = {};
  for (const [name, content] of Object.entries(texts)) {
    const s = await server.http(`/api/rag/pipelines/${pipelineId}/sources`, {
      method: "POST",
      json: { type: "text", name, content },
      jar,
    });
    sources[name] = s.body.id;
  }
  await waitReady(server, jar, pipelineId);
  return { jar, pipelineId, key, sources };
}

/** A new key of the pipeline: the raw `rag_…` string. */
export async function newKey(server: RunningBinary, jar: Tenant["jar"], pipelineId: string): Promise<string> {
  const k = await server.http(`/api/rag/pipelines/${pipelineId}/keys`, {
    method: "POST",
    json: { name: "agent" },
    jar,
  });
  return k.body.key as string;
}

/** Waits until every source of the pipeline is ready. */
export async function waitReady(server: RunningBinary, jar: Tenant["jar"], pipelineId: string): Promise<void> {
  await waitFor("sources ready", async () => {
    const list = await server.http(`/api/rag/pipelines/${pipelineId}/sources`, { jar });
    const all = list.body as { status: string; error: string | null }[];
    const failed = all.find((s) => s.status === "failed");
    if (failed) throw new Error(`source failed: ${failed.error}`);
    return all.every((s) => s.status === "ready");
  });
}

/** An SDK client connected over Streamable HTTP with the key. */
export async function connectHttp(url: string, key: string): Promise<Client> {
  const client = new Client({ name: "ragd-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/** The text of a tool result. */
export function textOf(r: CallToolResult | Record<string, unknown>): string {
  const content = (r as CallToolResult).content ?? [];
  return content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

/** The JSON a successful tool call returned; throws with the tool's message otherwise. */
export function jsonOf(r: CallToolResult | Record<string, unknown>): any {
  if ((r as CallToolResult).isError) throw new Error(`tool error: ${textOf(r)}`);
  return JSON.parse(textOf(r));
}
