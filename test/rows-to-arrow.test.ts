/**
 * Chunk rows as Arrow columns (src/vectors/chunk-arrow.ts, rowsToArrow): every string column
 * keeps each value exactly, whatever its characters (accents, characters outside the
 * basic plane, empty text), in the table built and once written to LanceDB and read back.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLance } from "../src/vectors/connection";
import { encodeChunkMetadata } from "../src/vectors/meta-index";
import { rowsToArrow } from "../src/vectors/chunk-arrow";
import type { ChunkRow } from "../src/vectors/tables";

const dir = mkdtempSync(join(tmpdir(), "ragd-rows-arrow-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const texts = [
  "plain words",
  "",
  "Ünïcödé — ‘quoted’ naïveté",
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 and 😀 pairs",
  "日本語のテキスト",
  "x".repeat(5000),
];
const rows: ChunkRow[] = texts.map((text, i) => ({
  id: `doc-${i % 2}:${i}`,
  documentId: `doc-${i % 2}`,
  chunkIndex: i,
  text,
  start: i * 10,
  end: i * 10 + text.length,
  vector: Float32Array.from({ length: 4 }, (_, k) => i + k / 10),
  metadata: encodeChunkMetadata(i % 2 ? { team: "rédaction", tags: ["é", "😀"] } : {}, {
    sourceType: "text",
    externalId: i % 2 ? "wiki/ä" : null,
  }),
}));

test("every string column keeps each value, in the Arrow table and through LanceDB", async () => {
  const table = rowsToArrow(rows);
  expect(table.getChild("text")!.toArray()).toEqual(texts);
  expect(table.getChild("id")!.toArray()).toEqual(rows.map((r) => r.id));
  expect(table.getChild("metadata")!.toArray()).toEqual(rows.map((r) => r.metadata));
  expect([...table.getChild("metadata_terms")!.get(1)!]).toEqual(
    expect.arrayContaining(["=team=rédaction", "=tags=😀", "=externalId=wiki/ä"]),
  );

  const conn = await openLance(dir);
  const lance = await conn.createTable("rows", table);
  const back = (await lance.query().select(["id", "text", "end"]).toArray()) as {
    id: string;
    text: string;
    end: number;
  }[];
  back.sort((a, b) => rows.findIndex((r) => r.id === a.id) - rows.findIndex((r) => r.id === b.id));
  expect(back.map((r) => r.text)).toEqual(texts);
  expect(back.map((r) => r.end)).toEqual(rows.map((r) => r.end));
});
