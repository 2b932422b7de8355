/**
 * A crawl of a generated site on loopback through the compiled binary: pages per
 * second for the first sync, then a second sync of the unchanged site and how many
 * texts it embedded (it should be none). Embeddings go to the fake Ollama of the
 * tests, which counts them.
 *
 *   bun bench/crawl.ts [pages=200] [delayMs=0]
 */
import { rmSync } from "node:fs";
import { tempDir } from "../test/support/app";
import { startFakeOllama } from "../test/support/fake-ollama";
import { ensureBinary } from "../test/support/binary";
import { random, startRagd } from "./support";

const PAGES = Number(process.argv[2] ?? 200);
const DELAY_MS = Number(process.argv[3] ?? 0);
const BRANCHING = 6;

const rnd = random(11);
const WORDS = "crawl index page link sitemap robots fetch delay host chunk vector query source schedule".split(" ");
const prose = (i: number) =>
  Array.from(
    { length: 6 },
    (_, p) =>
      `<p>Page ${i} part ${p}: ${Array.from({ length: 40 }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" ")}.</p>`,
  ).join("");
// Page i links to its children BRANCHING*i+1 … BRANCHING*i+BRANCHING: a tree, breadth first.
const bodies = Array.from({ length: PAGES }, (_, i) => {
  const links = Array.from({ length: BRANCHING }, (_, k) => BRANCHING * i + k + 1)
    .filter((c) => c < PAGES)
    .map((c) => `<a href="/p/${c}">page ${c}</a>`);
  return `<html><head><title>Page ${i}</title></head><body><main>${prose(i)}</main><nav>${links.join(" ")}</nav></body></html>`;
});
let requests = 0;
const site = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    requests++;
    const path = new URL(req.url).pathname;
    if (path === "/robots.txt") return new Response("User-agent: *\nAllow: /\n");
    const i = path === "/" ? 0 : Number(path.slice(3));
    const body = bodies[i];
    return body ? new Response(body, { headers: { "content-type": "text/html" } }) : new Response("", { status: 404 });
  },
});

await ensureBinary();
const fake = await startFakeOllama({ models: { "all-minilm": 384 } });
const dataDir = tempDir("ragd-crawl-bench-");
const { server, jar } = await startRagd(dataDir, {
  RAGD_FETCH_ALLOW: "127.0.0.1",
  RAGD_CRAWL_DELAY_MS: String(DELAY_MS),
  RAGD_OLLAMA_URL: fake.url,
});
try {
  const pipeline = await server.http("/api/rag/pipelines", {
    method: "POST",
    jar,
    json: { name: "crawl bench", embeddingModel: "ollama/all-minilm" },
  });
  const pid = pipeline.body.id as string;
  const depth = Math.ceil(Math.log(PAGES * (BRANCHING - 1) + 1) / Math.log(BRANCHING));
  const t0 = performance.now();
  const created = await server.http(`/api/rag/pipelines/${pid}/sources`, {
    method: "POST",
    jar,
    json: { type: "url", url: `http://127.0.0.1:${site.port}/`, crawl: { depth, maxPages: PAGES } },
  });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const sid = created.body.id as string;
  const first = await synced(pid, sid, "");
  const seconds = (performance.now() - t0) / 1000;
  const inputs = fake.stats().inputs;
  const requestsFirst = requests;

  const t1 = performance.now();
  await server.http(`/api/rag/pipelines/${pid}/sources/${sid}/refetch`, { method: "POST", jar, json: {} });
  const second = await synced(pid, sid, first.report.finishedAt);
  const seconds2 = (performance.now() - t1) / 1000;

  console.log(`site: ${PAGES} pages, depth ${depth}, crawl delay ${DELAY_MS} ms`);
  console.log(
    `first sync:  ${first.report.pages} pages, ${first.chunks} chunks, ${inputs} texts embedded, ${seconds.toFixed(2)} s, ${(first.report.pages / seconds).toFixed(1)} pages/s (${requestsFirst} requests)`,
  );
  console.log(
    `second sync: ${second.report.pages} pages, ${fake.stats().inputs - inputs} texts embedded, added ${second.report.added}, changed ${second.report.changed}, removed ${second.report.removed}, ${seconds2.toFixed(2)} s, ${(second.report.pages / seconds2).toFixed(1)} pages/s`,
  );
} finally {
  server.proc.kill();
  await server.proc.exited;
  await fake.stop();
  site.stop(true);
  rmSync(dataDir, { recursive: true, force: true });
}

interface Report {
  finishedAt: string;
  pages: number;
  added: number;
  changed: number;
  removed: number;
}

/** Waits for a crawl newer than `after` to be reported and every page to be ready. */
async function synced(pid: string, sid: string, after: string): Promise<{ report: Report; chunks: number }> {
  for (;;) {
    const list = (await server.http(`/api/rag/pipelines/${pid}/sources`, { jar })).body as {
      id: string;
      status: string;
      chunkCount: number;
      crawlReport?: Report | null;
    }[];
    const crawl = list.find((s) => s.id === sid)!;
    if (crawl.status === "failed") throw new Error(`crawl failed: ${JSON.stringify(crawl)}`);
    const report = crawl.crawlReport;
    const settled = list.every((s) => s.status === "ready");
    if (report && report.finishedAt > after && settled)
      return { report, chunks: list.reduce((n, s) => n + s.chunkCount, 0) };
    await Bun.sleep(100);
  }
}
