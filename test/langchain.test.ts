/**
 * A real client: LangChain's RemoteRetriever against the compiled binary. The
 * pipeline, its sources and its key are made over HTTP; the retriever only knows
 * the query URL and the key, as an application would.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  RemoteRetriever,
  type RemoteRetrieverParams,
  type RemoteRetrieverValues,
} from "@langchain/community/retrievers/remote";
import { Document } from "@langchain/core/documents";
import { rmSync } from "node:fs";
import { tempDir } from "./support/app";
import { ensureBinary, startBinary, type RunningBinary } from "./support/binary";
import { waitFor } from "./support/ingest";

/** ragd's query endpoint as a LangChain retriever: topK 3, score kept in the metadata. */
class RagdRetriever extends RemoteRetriever {
  lc_namespace = ["ragd", "retrievers"];

  constructor(fields: RemoteRetrieverParams) {
    super(fields);
  }

  createJsonBody(query: string): RemoteRetrieverValues {
    return { query, topK: 3 };
  }

  processJsonResponse(json: RemoteRetrieverValues): Document[] {
    return json.results.map(
      (r: { content: string; score: number; metadata: Record<string, unknown> }) =>
        new Document({ pageContent: r.content, metadata: { ...r.metadata, score: r.score } }),
    );
  }
}

const SOURCES = [
  {
    name: "Onboarding",
    content:
      "New engineers receive a Yubikey and a laptop on their first day; the onboarding buddy books the welcome lunch.",
  },
  {
    name: "Expenses",
    content:
      "Expense claims above 500 euros need approval from the finance lead before the reimbursement run on the 25th.",
  },
  {
    name: "On-call",
    content:
      "The on-call rotation changes every Monday at 10:00; pages for incident code SEV-7342 go to the database team.",
  },
  {
    name: "Parking",
    content: "Bicycle parking is in the basement of building C; the door code is changed every quarter by facilities.",
  },
];

let dataDir: string;
let server: RunningBinary;
const jar: { cookie?: string } = {};
let pipelineId: string;
let key: { id: string; key: string };
let retriever: RagdRetriever;

beforeAll(async () => {
  await ensureBinary();
  dataDir = tempDir("ragd-langchain-");
  server = await startBinary(dataDir);
  const signup = await server.http("/api/auth/signup", {
    method: "POST",
    json: { email: "lc@example.com", password: "correct horse battery" },
    jar,
  });
  if (signup.status !== 201) throw new Error(`signup: ${signup.status}`);
  const p = await server.http("/api/rag/pipelines", { method: "POST", json: { name: "Handbook" }, jar });
  pipelineId = p.body.id;
  for (const s of SOURCES) {
    const r = await server.http(`/api/rag/pipelines/${pipelineId}/sources`, {
      method: "POST",
      json: { type: "text", ...s },
      jar,
    });
    if (r.status !== 201) throw new Error(`add source: ${r.status} ${JSON.stringify(r.body)}`);
  }
  key = (
    await server.http(`/api/rag/pipelines/${pipelineId}/keys`, { method: "POST", json: { name: "langchain" }, jar })
  ).body;
  await waitFor("every source to be ready", async () => {
    const list = (await server.http(`/api/rag/pipelines/${pipelineId}/sources`, { jar })).body as { status: string }[];
    return list.length === SOURCES.length && list.every((s) => s.status === "ready");
  });
  retriever = new RagdRetriever({ url: `${server.url}/api/rag/query`, auth: { bearer: key.key }, maxRetries: 0 });
}, 60_000);

afterAll(() => {
  server?.proc.kill("SIGKILL");
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("LangChain RemoteRetriever against dist/ragd", () => {
  test.each([
    ["who approves expense claims above 500 euros", "Expenses"],
    ["incident code SEV-7342", "On-call"],
    ["where is the bicycle parking", "Parking"],
    ["what do new engineers receive on their first day", "Onboarding"],
  ])("invoke(%p) puts %s first", async (query, name) => {
    const docs = await retriever.invoke(query);
    expect(docs.length).toBeGreaterThan(0);
    expect(docs.length).toBeLessThanOrEqual(3);
    expect(docs[0]).toBeInstanceOf(Document);
    expect(docs[0]!.pageContent).toBe(SOURCES.find((s) => s.name === name)!.content);
    expect(docs[0]!.metadata).toMatchObject({ sourceName: name, chunkIndex: 0, sourceType: "text" });
    expect(docs[0]!.metadata.sourceId).toBeString();
    const scores = docs.map((d) => d.metadata.score as number);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const s of scores) expect(s >= 0 && s <= 1).toBe(true);
  });

  test("batch runs several queries", async () => {
    const [a, b] = await retriever.batch(["door code of building C", "reimbursement run on the 25th"]);
    expect(a![0]!.metadata.sourceName).toBe("Parking");
    expect(b![0]!.metadata.sourceName).toBe("Expenses");
  });

  test("after the key is revoked over HTTP, invoke rejects with the 401", async () => {
    const del = await server.http(`/api/rag/pipelines/${pipelineId}/keys/${key.id}`, { method: "DELETE", jar });
    expect(del.status).toBe(200);
    let error: unknown = null;
    await retriever.invoke("who approves expense claims").catch((e) => (error = e));
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toContain("401");
  });
});
