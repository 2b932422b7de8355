/**
 * The tokenizer twin (vectors/tokenizer-twin.ts) must split query text exactly as a table's
 * own full-text index does, or keyword scores on object storage would differ from those on
 * a data directory (search.ts divides BM25 by the query's distinct terms).
 */
import { expect, test } from "bun:test";
import { connect } from "@lancedb/lancedb";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tokenizerTwin } from "../src/vectors/tokenizer-twin";
import { ensureFtsIndex } from "../src/vectors/writer";

const TEXTS = [
  "Protein folding in cells: the cells' proteins folded",
  "The quick brown fox jumps over the lazy dog, again and again!",
  "Ünïcödé wörds, naïve café résumé — and 北京 tokens",
  "e-mail re-indexing x86_64 v2.3.1 C++ 42 3.14",
  "   ",
  "a an the of to in",
];

test("the twin's tokens are a table's own, text by text", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ragd-twin-"));
  const db = await connect(dir);
  try {
    const table = await db.createTable("t", [{ text: "seed row" }]);
    await ensureFtsIndex(table);
    const twin = tokenizerTwin();
    for (const text of TEXTS) {
      const own = (await table.tokenize(text, { column: "text" })).map((t) => t.text);
      expect(await twin(text)).toEqual(own);
    }
    // Not a trivial agreement: the index stems and drops nothing but changes words.
    expect(await twin("folding proteins")).toEqual(["fold", "protein"]);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
