/**
 * Credentials inside a url/api source's URL are used for the fetch and never shown: not in
 * the source, the source list, the pipeline, query results, error messages or the log.
 * Through the compiled binary (its log is the process's stderr) against a loopback server
 * that demands HTTP Basic authentication.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { splitCredentials, joinCredentials } from "../src/tools/url-credentials";
import { tempDir } from "./support/app";
import { ensureBinary, type RunningBinary, startBinary } from "./support/binary";
import { waitFor } from "./support/wait";

const USER = "reader";
const PASSWORD = "s3cret-Pa55word";
const EXPECTED = `Basic ${btoa(`${USER}:${PASSWORD}`)}`;

/** A page and a JSON document behind Basic auth; records the Authorization headers it saw. */
function protectedServer() {
  const seen: (string | null)[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const auth = req.headers.get("authorization");
      seen.push(auth);
      if (auth !== EXPECTED) return new Response("who are you", { status: 401 });
      const path = new URL(req.url).pathname;
      if (path === "/page")
        return new Response("<html><body><p>The zebra handbook says stripes are mandatory.</p></body></html>", {
          headers: { "content-type": "text/html" },
        });
      if (path === "/data") return Response.json({ note: "the okapi inventory lists four okapis" });
      return new Response("gone", { status: 404 });
    },
  });
  return { server, seen, port: server.port! };
}

describe("splitting and joining", () => {
  const cases: [string, string, string | null][] = [
    ["http://u:p@h/x", "http://h/x", "u:p"],
    ["https://us%40er:p%3Ass@h:8443/a?b=c#d", "https://h:8443/a?b=c#d", "us%40er:p%3Ass"],
    ["http://token@h/", "http://h/", "token"],
    ["http://:only-password@h/", "http://h/", ":only-password"],
    ["http://h/no-credentials", "http://h/no-credentials", null],
  ];
  test.each(cases)("%s is shown as %s", (input, shown, credentials) => {
    expect(splitCredentials(input)).toEqual({ url: shown, credentials });
    expect(joinCredentials(shown, credentials)).toBe(new URL(input).href);
  });
});

describe("a source whose URL carries credentials", () => {
  let bin: RunningBinary;
  let site: ReturnType<typeof protectedServer>;
  const jar: { cookie?: string } = {};
  let pipelineId: string;
  let key: string;

  beforeAll(async () => {
    await ensureBinary();
    site = protectedServer();
    bin = await startBinary(tempDir(), { RAGD_FETCH_ALLOW: "127.0.0.1", RAGD_LOG: "debug", RAGD_WORKERS: "1" });
    const signup = await bin.http("/api/auth/signup", {
      method: "POST",
      json: { email: "creds@example.com", password: "a good password" },
      jar,
    });
    expect(signup.status).toBe(201);
    const p = await bin.http("/api/rag/pipelines", { method: "POST", json: { name: "secrets" }, jar });
    pipelineId = p.body.id;
    key = (await bin.http(`/api/rag/pipelines/${pipelineId}/keys`, { method: "POST", json: { name: "k" }, jar })).body
      .key;
  }, 60_000);
  afterAll(() => {
    bin?.proc.kill();
    site?.server.stop(true);
  });

  /** Creates a source and waits until it leaves the queue; returns what the API answered. */
  async function addSource(type: "url" | "api", path: string) {
    const url = `http://${USER}:${PASSWORD}@127.0.0.1:${site.port}${path}`;
    const created = await bin.http(`/api/rag/pipelines/${pipelineId}/sources`, {
      method: "POST",
      json: { type, url },
      jar,
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const done = await waitFor("the source to be ready or failed", async (): Promise<{ body: any } | undefined> => {
      const list = await bin.http(`/api/rag/pipelines/${pipelineId}/sources`, { jar });
      const s = list.body.find((x: { id: string }) => x.id === id);
      return s.status === "ready" || s.status === "failed" ? { body: s } : undefined;
    });
    return { created, done: done!, shown: `http://127.0.0.1:${site.port}${path}` };
  }

  const sources: [string, "url" | "api", string, string, string][] = [
    ["a url source", "url", "/page", "ready", "zebra handbook"],
    ["an api source", "api", "/data", "ready", "okapi inventory"],
    ["a url source that fails", "url", "/missing", "failed", ""],
  ];
  test.each(sources)("%s is fetched with the credentials and shows none", async (_n, type, path, status, words) => {
    const before = site.seen.length;
    const { created, done, shown } = await addSource(type, path);
    expect(site.seen.slice(before)).toContain(EXPECTED);
    expect(done.body.status).toBe(status);
    for (const body of [created.body, done.body]) {
      expect(body.url).toBe(shown);
      expect(body.name).toBe(shown);
      expect(JSON.stringify(body)).not.toContain(PASSWORD);
    }
    if (status === "failed") expect(done.body.error).toContain(shown);
    if (!words) return;
    const q = await bin.http("/api/rag/query", {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      json: { query: words, topK: 5, mode: "keyword" },
    });
    expect(q.status).toBe(200);
    const hit = q.body.results.find((r: any) => r.metadata.sourceId === done.body.id);
    expect(hit.metadata.url).toBe(shown);
    expect(hit.metadata.sourceName).toBe(shown);
    expect(JSON.stringify(q.body)).not.toContain(PASSWORD);
  });

  test("no listing and no log line carries the password", async () => {
    const list = await bin.http(`/api/rag/pipelines/${pipelineId}/sources`, { jar });
    expect(list.body).toHaveLength(sources.length);
    const pipeline = await bin.http(`/api/rag/pipelines/${pipelineId}`, { jar });
    for (const r of [list, pipeline]) {
      expect(r.status).toBe(200);
      expect(JSON.stringify(r.body)).not.toContain(PASSWORD);
      expect(JSON.stringify(r.body)).not.toContain(USER);
    }
    expect(bin.logs()).toContain('"msg":"request"');
    expect(bin.logs()).not.toContain(PASSWORD);
  });
});
