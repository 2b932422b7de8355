/**
 * addArrow (src/vectors/ipc-add.ts): rows appended through the native add from a reused
 * buffer arrive exactly as table.add would store them, also when adds to several tables
 * run at once and the buffers of finished adds are taken again.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embedBuiltin } from "../src/embed/builtin";
import { rowsToArrow } from "../src/vectors/chunk-arrow";
import { openLance } from "../src/vectors/connection";
import { addArrow } from "../src/vectors/ipc-add";
import type { ChunkRow } from "../src/vectors/tables";

const dir = mkdtempSync(join(tmpdir(), "ragd-ipc-add-"));
const conn = await openLance(dir);
afterAll(() => {
  conn.close();
  rmSync(dir, { recursive: true, force: true });
});

const rows = (doc: string, from: number, n: number): ChunkRow[] =>
  Array.from({ length: n }, (_, k) => {
    const i = from + k;
    const text = `${doc} row ${i}: ${"ferry ".repeat(1 + (i % 13))}ümlaut 漢字 🚢`;
    return {
      id: `${doc}:${i}`,
      documentId: doc,
      chunkIndex: i,
      text,
      start: i,
      end: i + text.length,
      vector: embedBuiltin(text),
      metadata: JSON.stringify({ n: i }),
    };
  });

test("adds to three tables at once, buffers reused, store every row as written", async () => {
  const names = ["t_a", "t_b", "t_c"];
  const tables = await Promise.all(names.map((n) => conn.createTable(n, rowsToArrow(rows(n, 0, 1)))));
  // Counts the native adds: the rows must go that way, not through table.add's fallback.
  let nativeAdds = 0;
  for (const t of tables) {
    const inner = (t as unknown as { inner: { add: (...args: unknown[]) => Promise<unknown> } }).inner;
    const add = inner.add.bind(inner);
    inner.add = (...args) => {
      nativeAdds++;
      return add(...args);
    };
  }
  // Eight rounds of three concurrent adds of different sizes: later rounds take the buffers of earlier ones.
  for (let round = 0; round < 8; round++)
    await Promise.all(
      tables.map((t, k) => addArrow(t, rowsToArrow(rows(names[k]!, 1 + round * 1000, 200 + 150 * ((round + k) % 3))))),
    );
  expect(nativeAdds).toBe(24);
  for (const [k, t] of tables.entries()) {
    const want = [
      rows(names[k]!, 0, 1),
      ...Array.from({ length: 8 }, (_, r) => rows(names[k]!, 1 + r * 1000, 200 + 150 * ((r + k) % 3))),
    ].flat();
    const got = (await t.query().select(["id", "text", "start", "end", "metadata"]).toArray()) as {
      id: string;
      text: string;
      start: number;
      end: number;
      metadata: string;
    }[];
    expect(got.length).toBe(want.length);
    const byId = new Map(got.map((g) => [g.id, g]));
    for (const w of want) {
      const g = byId.get(w.id);
      expect(g && [g.text, g.start, g.end, JSON.parse(g.metadata).n]).toEqual([w.text, w.start, w.end, w.chunkIndex]);
    }
    const [v] = (await t.query().where(`id = '${names[k]}:1005'`).select(["vector"]).toArray()) as {
      vector: Float32Array;
    }[];
    expect(Array.from(v!.vector)).toEqual(Array.from(embedBuiltin(rows(names[k]!, 1005, 1)[0]!.text)));
  }
});
