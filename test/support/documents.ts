/**
 * A test app with one pipeline on the fake Ollama and a key that may query and
 * ingest, plus the documents API calls the documents tests share (docs/API.md,
 * Documents API). Methods are bound, so tests may take them apart.
 */
import type { Config } from "../../src/config";
import { makeApp, type TestApp } from "./app";
import { startFakeOllama, type FakeOllama } from "./fake-ollama";
import { Client, waitFor } from "./ingest";

export class DocumentsFixture {
  fake!: FakeOllama;
  t!: TestApp;
  c!: Client;
  pid!: string;
  key!: string;

  /** Starts the fake Ollama and the app, and makes the pipeline and its key. */
  async open(overrides: Partial<Config> = {}): Promise<void> {
    this.fake = await startFakeOllama({ models: { "all-minilm": 384 } });
    this.t = await makeApp({ ollamaUrl: this.fake.url, workers: 1, ...overrides });
    this.c = await Client.create(this.t);
    this.pid = await this.c.pipeline({
      name: "docs",
      embeddingModel: "ollama/all-minilm",
      chunkSize: 100,
      chunkOverlap: 0,
    });
    this.key = await this.keyFor(this.pid, ["query", "ingest"]);
  }

  close = async (): Promise<void> => {
    await this.t.close();
    await this.fake.stop();
  };

  keyFor = async (pipelineId: string, scopes: string[]): Promise<string> => {
    const r = await this.c.call("POST", `/api/rag/pipelines/${pipelineId}/keys`, { name: "app", scopes });
    if (r.status !== 201) throw new Error(`key: ${r.status} ${r.text}`);
    return r.body.key;
  };

  auth = (k = this.key) => ({ authorization: `Bearer ${k}` });

  put = (id: string, body: unknown, k = this.key) =>
    this.t.call("PUT", `/api/rag/documents/${encodeURIComponent(id)}`, { headers: this.auth(k), body });

  get = (id: string, k = this.key) =>
    this.t.call("GET", `/api/rag/documents/${encodeURIComponent(id)}`, { headers: this.auth(k) });

  /** Waits until the document is ready (and not re-queued) and returns it. */
  settled = (id: string, k = this.key) =>
    waitFor(`document ${id} to be ready`, async () => {
      const r = await this.get(id, k);
      return r.body?.status === "ready" || r.body?.status === "failed" ? r.body : null;
    });

  /** Every chunk text the pipeline answers with for a vector query (topK 100 covers these small corpora). */
  contents = async (k = this.key): Promise<string[]> => {
    const r = await this.t.call("POST", "/api/rag/query", {
      headers: this.auth(k),
      body: { query: "anything", topK: 100, mode: "vector" },
    });
    if (r.status !== 200) throw new Error(`query: ${r.status} ${r.text}`);
    return r.body.results.map((x: { content: string }) => x.content);
  };
}
