/**
 * Git sources (docs/API.md, "Git sources") against a repository served by `git
 * http-backend` on loopback: synced after commits that add, change, rename and delete
 * files, after a force-push that rewrites history, and with its clone removed; a
 * repository that cannot be reached fails the sync and deletes nothing; deleting the
 * source removes its clone.
 */
import { reportOf, syncedSources } from "./support/synced-sources";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { eventsAfter } from "../src/db/repo/events";
import { DocumentsFixture } from "./support/documents";
import { type GitServer, startGitServer } from "./support/git-server";
import { chunkRows, duplicates, NO_DUPLICATES, type SourceJson, waitFor } from "./support/ingest";
import { tempDir } from "./support/temp";

const base = tempDir();
const f = new DocumentsFixture();
const { filesOf, synced, refetch } = syncedSources(f);
let repo: GitServer;

const prose = (topic: string, n = 6) =>
  Array.from({ length: n }, (_, i) => `Sentence ${i} of the ${topic} notes speaks of ${topic} matters.`).join(" ");

/** Commits everything in the working copy and pushes it (forced when asked); the new head. */
function commit(message: string, force = false): string {
  repo.git("add", "-A");
  repo.git("commit", "-q", "-m", message);
  repo.git("push", "-q", ...(force ? ["--force"] : []), "origin", "main");
  return repo.git("rev-parse", "HEAD");
}

beforeAll(async () => {
  repo = await startGitServer(base);
  repo.write("alpha.md", prose("alpha"));
  repo.write("beta.txt", prose("beta"));
  repo.write("docs/gamma.md", prose("gamma"));
  symlinkSync("alpha.md", join(repo.work, "link.md"));
  commit("first");
  await f.open({ fetchAllow: ["127.0.0.1"] });
});
afterAll(async () => {
  await f.close();
  await repo.stop();
  rmSync(base, { recursive: true, force: true });
});

/** Every chunk's text, whether any chunk row is there twice, and how many rows. */
async function index() {
  const contents = await f.contents();
  const col = (await f.c.getPipeline(f.pid)) as { activeGeneration?: number };
  const rows = await chunkRows(f.t.dataDir, f.pid, col.activeGeneration ?? 1);
  return { text: contents.join("\n"), dupes: duplicates(rows.map((r) => r.id)), rows: rows.length };
}

const chunksOf = (files: Map<string, SourceJson>) => [...files.values()].reduce((n, s) => n + s.chunkCount, 0);

describe("git source settings", () => {
  test("a clone URL the fetch rules refuse is 400, as a url source's", async () => {
    const r = await f.c.addSource(f.pid, { type: "git", url: "http://169.254.169.254/repo.git" });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain("refused by the fetch rules");
  });

  test("git fields on another type, a folder's path on a git source, a bad branch: 400", async () => {
    for (const body of [
      { type: "text", content: "x", branch: "main" },
      { type: "url", url: "https://example.com/", token: "t" },
      { type: "git", url: repo.url, path: "/srv" },
      { type: "git", url: repo.url, branch: "../etc" },
      { type: "git", url: repo.url, password: "p", token: "t" },
    ])
      expect((await f.c.addSource(f.pid, body)).status).toBe(400);
  });
});

describe("a repository synced across commits, a force-push and a lost clone", () => {
  let source: SourceJson;
  let head: string;

  test("first sync: each file a document with its path and commit; a link is not followed", async () => {
    head = repo.git("rev-parse", "HEAD");
    const r = await f.c.addSource(f.pid, {
      type: "git",
      url: repo.url,
      branch: "main",
      username: "reader",
      token: "s3cret-token",
      refreshEvery: "1h",
    });
    expect(r.status).toBe(201);
    expect(JSON.stringify(r.body)).not.toContain("s3cret-token");
    source = await synced(r.body.id);
    expect(source.git).toMatchObject({ branch: "main", include: [], exclude: [], maxFileMb: 50, maxTotalMb: 1024 });
    expect(source.url).toBe(repo.url);
    expect(JSON.stringify(source)).not.toContain("s3cret-token");
    // The token went to the repository only, as the password of HTTP Basic.
    expect(repo.authorizations()).toContain(`Basic ${btoa("reader:s3cret-token")}`);
    expect(reportOf(source)).toMatchObject({ added: 3, changed: 0, deleted: 0, unchanged: 0, failed: 1, commit: head });
    expect(reportOf(source).failures[0]).toMatchObject({ path: "link.md" });
    const files = await filesOf(source.id);
    expect([...files.keys()].sort()).toEqual(["alpha.md", "beta.txt", "docs/gamma.md"]);
    const gamma = files.get("docs/gamma.md")!;
    expect(gamma.metadata).toMatchObject({ path: "docs/gamma.md", extension: "md", commit: head });
    expect(Number.isNaN(Date.parse((gamma.metadata as { authorDate: string }).authorDate))).toBe(false);
    const { text, dupes } = await index();
    expect(text).toContain("gamma notes");
    expect(dupes).toEqual(NO_DUPLICATES);
    expect(existsSync(join(f.t.dataDir, "git", source.id, "HEAD"))).toBe(true);
  });

  test("the sync's outcome is an event: source.ready with its counts", async () => {
    const events = await eventsAfter(f.t.services.db.reader, f.pid, 0, 10_000);
    const ready = events.filter((e) => e.documentId === source.id && e.type === "source.ready");
    expect(JSON.parse(ready.at(-1)!.data).sync).toMatchObject({ added: 3, failed: 1 });
  });

  test("second sync: added, changed, renamed and deleted files; only new blobs embedded", async () => {
    const before = await filesOf(source.id);
    rmSync(join(repo.work, "alpha.md"));
    rmSync(join(repo.work, "link.md"));
    repo.write("beta.txt", prose("delta"));
    repo.git("mv", "docs/gamma.md", "docs/gamma-renamed.md");
    repo.write("epsilon.md", prose("epsilon"));
    head = commit("second");
    const inputs = f.fake.stats().inputs;
    expect((await refetch(source.id)).status).toBe(202);
    source = await synced(source.id, reportOf(source).finishedAt);
    // A rename is one path gone and one new; only what changed is read.
    expect(reportOf(source)).toMatchObject({ added: 2, changed: 1, deleted: 2, unchanged: 0, failed: 0, commit: head });
    const files = await filesOf(source.id);
    expect([...files.keys()].sort()).toEqual(["beta.txt", "docs/gamma-renamed.md", "epsilon.md"]);
    expect(files.get("beta.txt")!.id).toBe(before.get("beta.txt")!.id);
    expect(f.fake.stats().inputs - inputs).toBe(chunksOf(files));
    const { text, dupes, rows } = await index();
    expect(text).toContain("delta notes");
    expect(text).not.toContain("beta notes");
    expect(text).not.toContain("alpha notes");
    expect(dupes).toEqual(NO_DUPLICATES);
    expect(rows).toBe(chunksOf(files));
  });

  test("a force-push that rewrites history: diffed against the new head, nothing twice", async () => {
    const first = repo.git("rev-list", "--max-parents=0", "HEAD");
    repo.git("reset", "-q", "--hard", first);
    rmSync(join(repo.work, "link.md"));
    repo.write("beta.txt", prose("zeta"));
    repo.write("docs/eta.md", prose("eta"));
    head = commit("rewritten", true);
    const inputs = f.fake.stats().inputs;
    expect((await refetch(source.id)).status).toBe(202);
    source = await synced(source.id, reportOf(source).finishedAt);
    // Back: alpha.md, docs/gamma.md; new: docs/eta.md; gone: epsilon.md, docs/gamma-renamed.md.
    expect(reportOf(source)).toMatchObject({ added: 3, changed: 1, deleted: 2, unchanged: 0, failed: 0, commit: head });
    const files = await filesOf(source.id);
    expect([...files.keys()].sort()).toEqual(["alpha.md", "beta.txt", "docs/eta.md", "docs/gamma.md"]);
    expect(f.fake.stats().inputs - inputs).toBe(chunksOf(files));
    const { text, dupes, rows } = await index();
    expect(text).toContain("zeta notes");
    expect(text).not.toContain("delta notes");
    expect(text).not.toContain("epsilon notes");
    expect(dupes).toEqual(NO_DUPLICATES);
    expect(rows).toBe(chunksOf(files));
  });

  test("the clone removed: the head is diffed against the stored blob ids, unchanged files embed nothing", async () => {
    rmSync(join(f.t.dataDir, "git", source.id), { recursive: true });
    repo.write("docs/eta.md", prose("theta"));
    head = commit("third");
    const before = await filesOf(source.id);
    const inputs = f.fake.stats().inputs;
    expect((await refetch(source.id)).status).toBe(202);
    source = await synced(source.id, reportOf(source).finishedAt);
    expect(reportOf(source)).toMatchObject({ added: 0, changed: 1, deleted: 0, unchanged: 3, failed: 0, commit: head });
    const files = await filesOf(source.id);
    expect(f.fake.stats().inputs - inputs).toBe(files.get("docs/eta.md")!.chunkCount);
    expect(files.get("alpha.md")!.indexedAt).toBe(before.get("alpha.md")!.indexedAt);
    const { text, dupes } = await index();
    expect(text).toContain("theta notes");
    expect(text).not.toContain("eta notes speaks of eta");
    expect(dupes).toEqual(NO_DUPLICATES);
  });

  test("an unchanged head: nothing read, nothing embedded", async () => {
    const inputs = f.fake.stats().inputs;
    expect((await refetch(source.id)).status).toBe(202);
    source = await synced(source.id, reportOf(source).finishedAt);
    expect(reportOf(source)).toMatchObject({ added: 0, changed: 0, deleted: 0, unchanged: 4, failed: 0 });
    expect(f.fake.stats().inputs - inputs).toBe(0);
  });

  test("the repository unreachable: the sync fails in one sentence and deletes nothing", async () => {
    const held = await filesOf(source.id);
    await repo.stop();
    expect((await refetch(source.id)).status).toBe(202);
    const failed = await waitFor("the sync to fail", async () => {
      const s = await f.c.source(f.pid, source.id);
      return s?.status === "failed" ? s : undefined;
    });
    expect(failed.error).toContain(`the repository ${repo.url} cannot be fetched`);
    expect(failed.error).toContain("nothing was deleted");
    expect([...(await filesOf(source.id)).keys()].sort()).toEqual([...held.keys()].sort());
    expect((await index()).text).toContain("theta notes");
  });

  test("deleting a pipeline removes its Git sources' clones", async () => {
    await repo.start();
    const other = await f.c.pipeline({ name: "other", embeddingModel: "ollama/all-minilm", chunkSize: 100 });
    const r = await f.c.addSource(other, { type: "git", url: repo.url });
    expect(r.status).toBe(201);
    const clone = join(f.t.dataDir, "git", r.body.id);
    await waitFor("the clone", async () => (existsSync(join(clone, "HEAD")) ? true : undefined));
    expect((await f.c.call("DELETE", `/api/rag/pipelines/${other}`)).status).toBe(200);
    await waitFor("the clone to go", async () => (existsSync(clone) ? undefined : true));
    expect(existsSync(join(f.t.dataDir, "git", source.id))).toBe(true);
  });

  test("deleting the Git source deletes its files' documents and its clone", async () => {
    const r = await f.c.call("DELETE", `/api/rag/pipelines/${f.pid}/sources/${source.id}`);
    expect(r.status).toBe(200);
    expect((await filesOf(source.id)).size).toBe(0);
    expect(existsSync(join(f.t.dataDir, "git", source.id))).toBe(false);
  });
});
