/**
 * Files no document names (a crash between storing a file and its commit): a server alone
 * removes them all at start; replicas, which may be between storing and committing one,
 * only those older than any upload still on its way (ingest/tasks/reconcile.ts,
 * removeUnnamedFiles; housekeeping.ts runs it hourly on replicas). Files of a deleted
 * collection go either way.
 */
import { afterEach, expect, test } from "bun:test";
import { rmSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { openStore } from "../src/db/client";
import { insertDocument } from "../src/db/repo/documents";
import type { Store } from "../src/db/store";
import { DiskFileStore } from "../src/files/disk-store";
import { STALE_UPLOAD_MS } from "../src/files/orphans";
import { removeUnnamedFiles } from "../src/ingest/tasks/reconcile";
import { tempDir } from "./support/app";
import { documentRow, seedPipeline } from "./support/engines";

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A pipeline with one file a document names, and two no document names: one written hours ago, one just now. */
async function setUp() {
  const dir = tempDir("ragd-unnamed-");
  dirs.push(dir);
  const db = openStore(dir);
  stores.push(db);
  const files = new DiskFileStore(dir);
  const { collectionId } = await seedPipeline(db);
  const named = documentRow(collectionId, { type: "file", fileName: "a.txt", status: "ready" });
  await db.atomically((tx) => insertDocument(tx, named));
  const [old, fresh] = [Bun.randomUUIDv7(), Bun.randomUUIDv7()];
  for (const name of [named.id, old, fresh]) await files.save(collectionId, name, new Blob(["bytes"]).stream(), 1024);
  const hoursAgo = (Date.now() - STALE_UPLOAD_MS - 3_600_000) / 1000;
  utimesSync(join(dir, "files", collectionId, old), hoursAgo, hoursAgo);
  return { db, files, collectionId, named: named.id, old, fresh };
}

test("a replica's sweep removes only the unnamed files older than any upload on its way", async () => {
  const s = await setUp();
  expect(await removeUnnamedFiles(s, Date.now() - STALE_UPLOAD_MS)).toBe(1);
  expect((await s.files.listFiles(s.collectionId)).sort()).toEqual([s.named, s.fresh].sort());
});

test("a server alone removes every unnamed file at start, and keeps the named one", async () => {
  const s = await setUp();
  expect(await removeUnnamedFiles(s)).toBe(2);
  expect(await s.files.listFiles(s.collectionId)).toEqual([s.named]);
});
