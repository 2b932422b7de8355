/**
 * Reads of a table running while its collection is deleted (src/vectors/tables.ts,
 * TableCache.hold): searches, an ANN build, /metrics statistics and backup versions each
 * end (with rows or none) and the process survives. LanceDB frees a closed handle's
 * native state at once; closing it under a running call crashed the whole process with a
 * segmentation fault, as a pipeline deleted under its queries or its upkeep did. A holder
 * whose calls run side by side waits for all of them (src/tools/all-done.ts).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embedBuiltin } from "../src/embed/builtin";
import { allDone } from "../src/tools/all-done";
import { type IndexBuilder, inProcess } from "../src/vectors/index-build";
import { openLance } from "../src/vectors/connection";
import { type ChunkRow, VectorStore } from "../src/vectors/store";

const dir = mkdtempSync(join(tmpdir(), "ragd-drop-race-"));
const conn = await openLance(dir);
afterAll(() => {
  conn.close();
  rmSync(dir, { recursive: true, force: true });
});

const rows = (doc: string, n: number): ChunkRow[] =>
  Array.from({ length: n }, (_, i) => {
    const text = `${doc} note ${i}: harbour tides ferry pier lighthouse keeper ${i % 7}`;
    return {
      id: `${doc}:${i}`,
      documentId: doc,
      chunkIndex: i,
      text,
      start: 0,
      end: text.length,
      vector: embedBuiltin(text),
    };
  });

test("searches racing a collection's deletion answer, and the process lives on", async () => {
  for (let round = 0; round < 12; round++) {
    const vectorStore = new VectorStore(conn);
    const c = crypto.randomUUID();
    await vectorStore.replaceDocuments(c, 1, ["a"], rows("a", 400));
    const text = "ferry pier tides";
    const searches = Array.from({ length: 24 }, (_, i) =>
      vectorStore.search(c, 1, {
        mode: (["hybrid", "keyword", "vector"] as const)[i % 3],
        text,
        vector: embedBuiltin(text),
        topK: 5,
      }),
    );
    await Bun.sleep(round % 4);
    const dropped = vectorStore.dropCollection(c);
    const answers = await Promise.all(searches);
    await dropped;
    for (const hits of answers) expect(hits.length === 0 || hits.length === 5).toBe(true);
    expect(await vectorStore.search(c, 1, { mode: "vector", text, vector: embedBuiltin(text), topK: 5 })).toEqual([]);
    vectorStore.close();
  }
}, 60_000);

test("an ANN build and stats racing a collection's deletion end, and the process lives on", async () => {
  for (let round = 0; round < 16; round++) {
    let started!: () => void;
    const building = new Promise<void>((r) => (started = r));
    // Trains in this process as the tests' default does, and says when training began.
    const indexBuilder: IndexBuilder = (table, name, n) => {
      const training = inProcess(table, name, n);
      started();
      return training;
    };
    const vectorStore = new VectorStore(conn, { annThreshold: 256, indexBuilder });
    const c = crypto.randomUUID();
    await vectorStore.replaceDocuments(c, 1, ["a"], rows("a", 400));
    // upkeep() ends with its builds: the drop lands while the build trains on the handle
    // (builds run outside the write queue), or reads its indexes before and after.
    const upkeep = vectorStore.upkeep();
    await building;
    const stats = vectorStore.tableStats();
    const versions = vectorStore.tableVersions();
    await Bun.sleep(round % 4);
    const buildingAtDrop = vectorStore.indexBuilding;
    await vectorStore.dropCollection(c);
    await Promise.all([upkeep, stats, versions]);
    expect(buildingAtDrop).toBe(true);
    expect(vectorStore.indexBuilding).toBe(false);
    // Statistics and versions name only tables that exist: the dropped one is left out or listed whole.
    for (const t of await stats) expect(t.rows === 400 || t.collectionId !== c).toBe(true);
    expect(await vectorStore.countRows(c, 1)).toBe(0);
    vectorStore.close();
  }
}, 60_000);

test("allDone rejects only once every call has ended, with the first failure in order", async () => {
  let slowEnded = false;
  const slow = Bun.sleep(30).then(() => {
    slowEnded = true;
    return "slow";
  });
  const failing = Promise.reject(new Error("files gone"));
  const seen = await allDone([slow, failing]).then(
    () => "resolved",
    (err: Error) => `${err.message}; the slow call ended: ${slowEnded}`,
  );
  expect(seen).toBe("files gone; the slow call ended: true");
  expect(await allDone([Bun.sleep(5).then(() => 1), Promise.resolve("two")])).toEqual([1, "two"]);
});

test("src/vectors starts concurrent table calls with allDone, never Promise.all, race or any", () => {
  const dir = join(import.meta.dir, "..", "src", "vectors");
  const offending = readdirSync(dir)
    .filter((f) => f.endsWith(".ts"))
    .flatMap((f) =>
      readFileSync(join(dir, f), "utf8")
        .split("\n")
        .map((line, i) => ({ at: `${f}:${i + 1}`, line }))
        .filter(({ line }) => /Promise\.(all|race|any)\(/.test(line)),
    )
    .map(({ at }) => at);
  expect(offending).toEqual([]);
});
