/**
 * Backup and restore (docs/API.md, Backup and restore): a backup taken while
 * sources are ingested and queries run restores to exactly the answers the original
 * gave at the snapshot; damaged, truncated, newer or misdirected restores are
 * refused before anything is written.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { archiveBytes, writeAtomically } from "../src/backup/archive";
import { type BackupManifest, restoreBackup } from "../src/backup/backup";
import { buildApp } from "../src/app";
import { defaultConfig } from "../src/config";
import { openStore } from "../src/db/client";
import { findCollectionById } from "../src/db/repo/collections";
import { metadataLookup } from "../src/ingest/write/metadata-lookup";
import { createLogger } from "../src/log";
import { Searcher } from "../src/retrieval/searcher";
import { closeServices, createServices } from "../src/services";
import { openLance } from "../src/vectors/connection";
import { VectorStore } from "../src/vectors/store";
import { version } from "../src/version";
import { makeApp, tempDir, type TestApp } from "./support/app";
import { Client, waitFor } from "./support/ingest";

const tmp = tempDir("ragd-backup-");
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const ROOTS =
  "river mountain ledger copper violin harbor quantum garden lantern meadow orbit saffron glacier tundra falcon prism canyon ember willow cobalt".split(
    " ",
  );
// A vocabulary wide enough that two chunks rarely tie on a score (ties may come back in any order).
const WORDS = ROOTS.flatMap((r) => ROOTS.map((s) => `${r}${s.slice(0, 3)}`)).concat(ROOTS);

/** A deterministic text of `paragraphs` paragraphs for document `i`. */
function text(i: number, paragraphs = 3): string {
  let seed = i * 7919 + 17;
  const next = () => (seed = (seed * 48271) % 2147483647);
  const out: string[] = [];
  for (let p = 0; p < paragraphs; p++) {
    const words = Array.from({ length: 60 }, () => WORDS[next() % WORDS.length]);
    out.push(`Document ${i} part ${p}: ${words.join(" ")}.`);
  }
  return out.join("\n\n");
}

const QUERIES = [
  "river copper",
  "quantumgar lanternmea",
  "falcon over the canyonemb",
  "Document 7",
  "willowemb emberpri prism",
];
const MODES = ["vector", "keyword", "hybrid"] as const;

/**
 * What a query answered, reduced to what must be identical. Chunks that tie on a score
 * may come back in any order, and at the topK cut any of them may be the one kept: ties
 * are put in one order, and those tied with the last result are left out.
 */
function shape(results: { content: string; score: number; metadata: Record<string, unknown> }[]) {
  const last = results.at(-1)?.score;
  const kept = results.length < 10 ? results : results.filter((r) => r.score !== last);
  const key = (r: (typeof results)[number]) =>
    `${r.metadata.sourceId}:${String(r.metadata.chunkIndex).padStart(6, "0")}`;
  const sorted = [...kept].sort((a, b) => b.score - a.score || key(a).localeCompare(key(b)));
  return sorted.map((r) => ({
    content: r.content,
    // A hit's cosine comes from LanceDB or from its stored vector, by which list found it
    // (search.ts); the two can differ in the eighth decimal between two equal tables.
    score: Math.round(r.score * 1e6) / 1e6,
    sourceId: r.metadata.sourceId,
    chunkIndex: r.metadata.chunkIndex,
    sourceName: r.metadata.sourceName,
  }));
}

describe("backup under load", () => {
  test("restores to exactly the answers the original gave at the snapshot", async () => {
    const a = await makeApp({ queryRate: 1_000_000, queryBurst: 1_000_000 });
    let stop = false;
    try {
      const c = await Client.create(a);
      const p = await c.pipeline({ chunkSize: 300, chunkOverlap: 50 });
      for (let i = 0; i < 30; i++) await c.addText(p, text(i), `doc ${i}`);
      await c.allSettled(p, 60_000);
      const key = await c.key(p);

      // Load: sources keep arriving (large enough to be mid-ingestion at the snapshot) and queries keep running.
      let served = 0;
      const ingest = (async () => {
        for (let i = 100; !stop; i++) {
          const r = await c.addSource(p, { type: "text", content: text(i, 40), name: `load ${i}` });
          // A full queue (a loaded machine ingests slower than this adds) says when to come back.
          if (r.status === 429) await Bun.sleep(1000);
          else if (r.status !== 201) throw new Error(`add text: ${r.status} ${r.text}`);
          await Bun.sleep(5);
        }
      })();
      const queries = (async () => {
        for (let n = 0; !stop; n++) {
          const r = await c.query(key, { query: QUERIES[n % QUERIES.length], mode: MODES[n % 3], topK: 10 });
          if (r.status !== 200) throw new Error(`query during backup: ${r.status} ${r.text}`);
          served++;
        }
      })();
      await waitFor("ingestion under load", async () => {
        const all = await c.sources(p);
        return all.some((s) => s.status === "processing") && all.filter((s) => s.status === "ready").length > 32;
      });

      // Sources that exist before the backup begins must be in it; sources created while it
      // runs may be (the database is copied on its own thread while requests go on).
      const before = new Set((await c.sources(p)).map((s) => s.id));
      const expected = new Map<string, ReturnType<typeof shape>>();
      let snapshotSources: { id: string; status: string }[] = [];
      const answered: number[] = [];
      const prepared = await a.services.backups.prepare(async () => {
        snapshotSources = (await c.sources(p)).map((s) => ({ id: s.id, status: s.status }));
        for (const q of QUERIES)
          for (const mode of MODES) {
            const r = await c.query(key, { query: q, mode, topK: 10 });
            answered.push(r.body.results.length);
            expected.set(`${mode}|${q}`, shape(r.body.results));
          }
      });
      const file = join(tmp, "load.tar");
      await writeAtomically(file, prepared.bytes);
      const queriesBefore = served;
      await Bun.sleep(200);
      stop = true;
      await Promise.all([ingest, queries]);
      expect(served).toBeGreaterThan(queriesBefore); // queries ran on after the snapshot
      expect(snapshotSources.some((s) => s.status !== "ready")).toBe(true); // taken mid-ingestion
      // Counted before shape() drops the tie at the last place, which may be most of a page.
      expect(answered.every((n) => n >= 5)).toBe(true);

      const dir = join(tmp, "restored-load");
      const manifest = await restoreBackup(file, dir);
      expect(Object.keys(manifest.tables).length).toBe(1);

      // The restored data, searched before any server ingests into it, answers as the original did.
      const db = openStore(dir);
      const vectorStore = new VectorStore(await openLance(dir), { metadataOf: metadataLookup(db) });
      const searcher = new Searcher(db, vectorStore, defaultConfig());
      const col = (await findCollectionById(db.reader, p))!;
      for (const q of QUERIES)
        for (const mode of MODES) {
          const got = await searcher.search(col, { query: q, mode, topK: 10 });
          expect({ q, mode, r: shape(got.results) }).toEqual({ q, mode, r: expected.get(`${mode}|${q}`)! });
        }
      vectorStore.close();
      await db.close();

      // A server on it finishes what was under way and holds exactly the snapshot's sources.
      // The original finishes its own first, so each source's chunks can be compared.
      await c.allSettled(p, 120_000);
      await a.services.engine.stop();
      const config = { ...a.config, dataDir: dir };
      const b = await createServices(
        config,
        createLogger("error", () => {}),
      );
      try {
        const app = buildApp(b);
        const list = async () =>
          (await (
            await app.handle(
              new Request(`http://localhost/api/rag/pipelines/${p}/sources`, { headers: { cookie: c.cookie } }),
            )
          ).json()) as { id: string; status: string; chunkCount: number }[];
        const settled = await waitFor(
          "restored sources to settle",
          async () => {
            const all = await list();
            return all.every((s) => s.status === "ready") ? all : null;
          },
          60_000,
        );
        const restored = new Set(settled.map((s) => s.id));
        expect([...before].filter((id) => !restored.has(id))).toEqual([]);
        const atHook = new Set(snapshotSources.map((s) => s.id));
        expect([...restored].filter((id) => !atHook.has(id))).toEqual([]);
        const original = new Map((await c.sources(p)).map((s) => [s.id, s.chunkCount]));
        for (const s of settled) expect(s.chunkCount).toBe(original.get(s.id)!);
      } finally {
        await closeServices(b);
      }
    } finally {
      stop = true;
      await a.close();
    }
  }, 180_000);
});

describe("restore refuses before writing anything", () => {
  let good = "";
  let app: TestApp | null = null;

  test("setup: a small backup", async () => {
    app = await makeApp();
    const c = await Client.create(app);
    const p = await c.pipeline();
    await c.addText(p, text(1), "one");
    await c.allSettled(p);
    good = join(tmp, "good.tar");
    const b = await app.services.backups.prepare();
    await writeAtomically(good, b.bytes);
    await app.close();
  }, 60_000);

  const refused = async (file: string, dir: string, message: RegExp) => {
    await expect(restoreBackup(file, dir)).rejects.toThrow(message);
    expect(!existsSync(dir) || readdirSync(dir).length === 0).toBe(true);
    expect(readdirSync(tmp).filter((f) => f.includes(".restoring-"))).toEqual([]);
  };

  test("into a directory that is not empty", async () => {
    const dir = join(tmp, "busy");
    mkdirSync(dir);
    writeFileSync(join(dir, "keep.txt"), "mine");
    await expect(restoreBackup(good, dir)).rejects.toThrow(/not empty/);
    expect(readdirSync(dir)).toEqual(["keep.txt"]);
    expect(readFileSync(join(dir, "keep.txt"), "utf8")).toBe("mine");
  });

  test("a truncated archive", async () => {
    const bytes = readFileSync(good);
    for (const cut of [100, 1024, Math.floor(bytes.length / 2), bytes.length - 600]) {
      const file = join(tmp, `cut-${cut}.tar`);
      writeFileSync(file, bytes.subarray(0, cut));
      await refused(file, join(tmp, `r-cut-${cut}`), /truncated|incomplete|missing/);
    }
  });

  test("a damaged archive", async () => {
    const bytes = Buffer.from(readFileSync(good));
    bytes[Math.floor(bytes.length * 0.6)]! ^= 0xff;
    const file = join(tmp, "damaged.tar");
    writeFileSync(file, bytes);
    await refused(file, join(tmp, "r-damaged"), /damaged|checksum/);
  });

  test("an archive from a newer ragd, saying what it needs and naming versions only when they differ", async () => {
    const src = join(tmp, "r-source");
    const m = await restoreBackup(good, src);
    const cases: [Partial<BackupManifest>, string][] = [
      [
        { ragdVersion: "99.0.0", migrations: [...m.migrations, "9999_future"] },
        `this backup needs a newer ragd: its database has a migration this ragd does not know (9999_future); restore it with ragd 99.0.0 or later (this is ragd ${version})`,
      ],
      // Another build of the same version: "a newer ragd (0.1.0) than this one (0.1.0)" was said here.
      [
        { ragdVersion: version, migrations: [...m.migrations, "9998_branch", "9999_branch"] },
        `this backup needs a newer ragd: its database has 2 migrations this ragd does not know (9998_branch, 9999_branch); restore it with the build of ragd that made it (this is ragd ${version})`,
      ],
      [
        { ragdVersion: version, formatVersion: 2 },
        `this backup needs a newer ragd: its archive format is version 2, and this ragd reads up to version 1; restore it with the build of ragd that made it (this is ragd ${version})`,
      ],
    ];
    for (const [i, [change, message]] of cases.entries()) {
      const file = join(tmp, `newer-${i}.tar`);
      await writeAtomically(file, archiveBytes(src, { ...m, ...change }));
      const dir = join(tmp, `r-newer-${i}`);
      await expect(restoreBackup(file, dir)).rejects.toThrow(message);
      await refused(file, dir, /newer ragd/);
    }
  });

  test("the intact archive restores", async () => {
    const dir = join(tmp, "r-good");
    const m = await restoreBackup(good, dir);
    expect(readdirSync(dir).sort()).toEqual(
      ["files", "lance", "ragd.db", "secret.key"].filter((f) => m.entries.some((e) => e.path.startsWith(f))),
    );
  });
});
