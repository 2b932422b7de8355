/**
 * Untrusted documents through the compiled binary: the charset detector and the JSON
 * depth check must work inside the executable and its ingestion worker, not only under
 * `bun test` (docs/API.md, "What text is indexed").
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { tempDir } from "./support/app";
import { ensureBinary, type RunningBinary, startBinary } from "./support/binary";
import { waitFor } from "./support/ingest";

let server: RunningBinary;
let site: ReturnType<typeof Bun.serve>;
const jar: { cookie?: string } = {};
const latin1 = (s: string) => Uint8Array.from([...s].map((ch) => ch.charCodeAt(0)));

const PAGES: Record<string, [Uint8Array<ArrayBuffer> | string, string]> = {
  "/menu.txt": [latin1("Caf\xe9 cr\xe8me at the corner"), "text/plain"],
  "/menu.html": [latin1("<html><body><p>Caf\xe9 cr\xe8me and a croissant</p></body></html>"), "text/html"],
  "/quotes.txt": [Uint8Array.from([0x93, ...latin1("Smart"), 0x94, 0x20, ...latin1("caf\xe9 quotes")]), "text/plain"],
  "/deep.json": [`${"[".repeat(200_000)}1${"]".repeat(200_000)}`, "application/json"],
};

beforeAll(async () => {
  await ensureBinary();
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const page = PAGES[new URL(req.url).pathname];
      return page ? new Response(page[0], { headers: { "content-type": page[1] } }) : new Response("", { status: 404 });
    },
  });
  server = await startBinary(tempDir(), { RAGD_FETCH_ALLOW: "127.0.0.1" });
  const signup = await server.http("/api/auth/signup", {
    method: "POST",
    json: { email: "charset@example.com", password: "correct horse battery" },
    jar,
  });
  expect(signup.status).toBe(201);
}, 120_000);

afterAll(() => {
  server?.proc.kill("SIGKILL");
  site?.stop(true);
});

test("undeclared Latin-1 and windows-1252 pages are read right; deep JSON fails with a sentence", async () => {
  const pid = (await server.http("/api/rag/pipelines", { method: "POST", json: { name: "enc" }, jar })).body.id;
  const base = `http://127.0.0.1:${site.port}`;
  for (const [path, type] of [
    ["/menu.txt", "url"],
    ["/menu.html", "url"],
    ["/quotes.txt", "url"],
    ["/deep.json", "api"],
  ]) {
    const r = await server.http(`/api/rag/pipelines/${pid}/sources`, {
      method: "POST",
      json: { type, url: base + path },
      jar,
    });
    expect(r.status).toBe(201);
  }
  const sources = await waitFor("every source to settle", async () => {
    const all = (await server.http(`/api/rag/pipelines/${pid}/sources`, { jar })).body as {
      url: string;
      status: string;
      error: string | null;
    }[];
    return all.every((s) => s.status === "ready" || s.status === "failed") ? all : null;
  });
  expect(sources.map((s) => [s.url.slice(base.length), s.status, s.error]).sort()).toEqual([
    ["/deep.json", "failed", "JSON nested deeper than 1,000 levels"],
    ["/menu.html", "ready", null],
    ["/menu.txt", "ready", null],
    ["/quotes.txt", "ready", null],
  ]);
  const key = (await server.http(`/api/rag/pipelines/${pid}/keys`, { method: "POST", json: { name: "k" }, jar })).body
    .key;
  const r = await server.http("/api/rag/query", {
    method: "POST",
    json: { query: "café", mode: "keyword", topK: 10 },
    headers: { authorization: `Bearer ${key}` },
  });
  expect(r.body.results.map((x: { content: string }) => x.content).sort()).toEqual([
    "Caf\u00e9 cr\u00e8me and a croissant",
    "Caf\u00e9 cr\u00e8me at the corner",
    "\u201cSmart\u201d caf\u00e9 quotes",
  ]);
});
