/**
 * English terms (src/text, language `en`) are the terms LanceDB's own English index makes
 * of the same words (its default full-text settings, those of a `legacy` pipeline): the
 * Snowball English stem, its stop words dropped. Checked on every word of the repository's
 * docs and on words whose stems the stemmer ragd used before got wrong (digits, a final
 * `u`), against a real LanceDB index's tokenizer.
 */
import { expect, test } from "bun:test";
import { connect, Index } from "@lancedb/lancedb";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { analyseChunk } from "../src/text/analyze";

const TRICKY = "cd33 001 599 s100a9 pi3k p38mapk stat1 flu tau plateau milieu you situ guangzhou cxcl10 gen2";
/** LanceDB's tokenizer drops a token of 40 characters or more; such words are not compared. */
const MAX_TOKEN = 39;

function docsWords(): string[] {
  const dir = join(import.meta.dir, "..", "docs");
  const words = new Set<string>();
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".md")))
    for (const w of readFileSync(join(dir, f), "utf8")
      .toLowerCase()
      .match(/[a-z0-9]+/g) ?? [])
      if (w.length <= MAX_TOKEN) words.add(w);
  return [...words];
}

test("English terms are LanceDB's English index terms, word for word", async () => {
  const db = await connect("memory://");
  const table = await db.createTable("twin", [{ text: "twin" }]);
  await table.createIndex("text", { config: Index.fts() });
  const words = [...TRICKY.split(" "), ...docsWords()];
  expect(words.length).toBeGreaterThan(3000);
  for (let i = 0; i < words.length; i += 500) {
    const text = words.slice(i, i + 500).join(" ");
    const lance = (await table.tokenize(text, { column: "text" })).map((t) => t.text);
    expect(analyseChunk(text, "en").terms.split(" ").filter(Boolean)).toEqual(lance);
  }
  table.close();
  db.close();
});
