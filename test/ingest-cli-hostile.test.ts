/**
 * `ragd ingest` against servers that are not ragd or misbehave (docs/applications.md, Keeping
 * a folder in step): whatever they answer, the run ends, holds a bounded answer in memory, and
 * stops at once when every file would fail alike. Each server here is a few lines on loopback.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./support/app";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
const dir = tempDir("ragd-ingest-hostile-");
const FILES = 12;
/** Long enough for any of these runs to end by itself; a run still going then is a hang. */
const HANG_MS = 20_000;

beforeAll(() => {
  for (let i = 0; i < FILES; i++) writeFileSync(join(dir, `f${i}.txt`), `File number ${i} of the harbour log.`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A server answering `answer`, and how many requests of each method it saw. */
function serve(answer: (req: Request, url: URL) => Response) {
  const seen = { GET: 0, PUT: 0 };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      if (req.method === "GET" || req.method === "PUT") seen[req.method]++;
      return answer(req, new URL(req.url));
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, seen, stop: () => server.stop(true) };
}

/** `ragd ingest dir` against `url`; killed (code null in `hung`) when it has not ended in HANG_MS. */
async function ingest(url: string) {
  const proc = Bun.spawn([process.execPath, MAIN, "ingest", dir, "--url", url, "--key", `rag_${"k".repeat(40)}`], {
    stdout: "pipe",
    stderr: "pipe",
  });
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    proc.kill();
  }, HANG_MS);
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  return { hung, code, out: out.trim(), err };
}

/** A full page of made-up documents, different on every page. */
const fullPage = (page: number) =>
  Array.from({ length: 1000 }, (_, i) => ({ externalId: `p${page}/${i}.txt`, contentHash: "0", status: "ready" }));

const created = () => Response.json({ status: "created" }, { status: 201 });

test("full pages forever: without a total the run stops; with one, paging ends there", async () => {
  const endless = serve((_, u) => Response.json({ documents: fullPage(Number(u.searchParams.get("page"))) }));
  const r = await ingest(endless.url);
  endless.stop();
  expect(r.hung).toBe(false);
  expect(r.code).toBe(2);
  expect(r.err).toContain("did not answer with a document list");
  expect(endless.seen.PUT).toBe(0);

  const bounded = serve((req, u) =>
    req.method === "PUT"
      ? created()
      : Response.json({ documents: fullPage(Number(u.searchParams.get("page"))), total: 2500 }),
  );
  const b = await ingest(bounded.url);
  bounded.stop();
  expect(b.hung).toBe(false);
  expect(bounded.seen.GET).toBe(3);
  expect(b.code).toBe(0);
  expect(b.out).toBe(`ragd ingest: ${FILES} files: ${FILES} created, 0 replaced, 0 unchanged, 0 failed`);
}, 60_000);

test("an endless answer is cut off, not read into memory", async () => {
  const chunk = new TextEncoder().encode(`[${"1,".repeat(1 << 20)}`);
  const huge = serve(() => new Response(new ReadableStream({ pull: (c) => c.enqueue(chunk) })));
  const r = await ingest(huge.url);
  huge.stop();
  expect(r.hung).toBe(false);
  expect(r.code).toBe(2);
  expect(r.err).toContain("answered with more than 64 MiB");
}, 60_000);

test("hashes and entries of the wrong type: a null entry stops the run, a numeric hash resends", async () => {
  const nulls = serve(() => Response.json({ documents: [null], total: 1 }));
  const r = await ingest(nulls.url);
  nulls.stop();
  expect(r.code).toBe(2);
  expect(r.err).toContain("did not answer with a document list");

  const numeric = serve((req) =>
    req.method === "PUT"
      ? created()
      : Response.json({ documents: [{ externalId: "f0.txt", contentHash: 7, status: "ready" }], total: 1 }),
  );
  const n = await ingest(numeric.url);
  numeric.stop();
  expect(n.code).toBe(0);
  expect(numeric.seen.PUT).toBe(FILES);
});

test("429 forever: the run stops when the first file has waited its retries out", async () => {
  const busy = serve((req) =>
    req.method === "GET"
      ? Response.json({ documents: [], total: 0 })
      : Response.json(
          { error: { code: "rate_limited", message: "slow down" } },
          { status: 429, headers: { "retry-after": "0.01" } },
        ),
  );
  const r = await ingest(busy.url);
  busy.stop();
  expect(r.hung).toBe(false);
  expect(r.code).toBe(2);
  expect(r.err).toContain("still busy after 300 retries");
  // Four workers, each at most one file of 301 attempts; not every file's 301.
  expect(busy.seen.PUT).toBeLessThanOrEqual(4 * 301);
}, 60_000);
