/**
 * The language detector (src/text/eld-detect.ts) answers exactly as the `eld` package
 * does: the same language, reliability and scores, from source and bundled with the
 * tables as the executable carries them (src/text/eld-tables.ts,
 * scripts/detector-tables.ts), on the repository's docs, short texts of many languages
 * and arbitrary strings; and every packed n-gram reads back as the package's tables have it.
 */
import { afterAll, expect, test } from "bun:test";
import { eld as packageEld } from "eld/extrasmall";
import fc from "fast-check";
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { detectLanguage } from "../src/text/eld-data";
import type { Detection } from "../src/text/eld-detect";
import { NgramTable, type Ngrams, packNgrams } from "../src/text/eld-tables";
import { detectorTables } from "../scripts/detector-tables";
import { OTHER, TEXTS } from "./support/languages";
import { tempDir } from "./support/temp";

const root = join(import.meta.dir, "..");
const TABLES = join(root, "node_modules", "eld", "src", "ngrams", "extrasmall.js");
const out = tempDir("ragd-eld-tables-");
afterAll(() => rmSync(out, { recursive: true, force: true }));

const { ngramsData } = (await import(TABLES)) as { ngramsData: { ngrams: Ngrams } };
const tables = ngramsData.ngrams;

test("every n-gram reads back with the same languages, scores and order", () => {
  const { keys, packed } = packNgrams(tables);
  const table = new NgramTable(keys, packed);
  const names = Object.keys(tables);
  expect(names.length).toBeGreaterThan(40_000);
  const differing = names.filter((name) => JSON.stringify(table.entry(name)) !== JSON.stringify(tables[name]));
  expect(differing).toEqual([]);
  for (const missing of ["", " zzzq", "constructor", "__proto__", "toString", `${names[0]}x`, names[0]!.slice(1)])
    if (!(missing in tables)) expect(table.entry(missing)).toBeUndefined();
});

/** Paragraphs of the repository's docs, and the short texts of each language and their word prefixes. */
function samples(): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .flatMap((f) => readFileSync(join(root, "docs", f), "utf8").split(/\n\s*\n/));
  const texts = [...Object.values(TEXTS), ...Object.values(OTHER), ...MORE];
  const prefixes = texts.flatMap((t) => t.split(" ").map((_, i, words) => words.slice(0, i + 1).join(" ")));
  return [...docs, ...texts, ...prefixes];
}

const MORE = [
  "Le gouvernement a annoncé hier de nouvelles mesures pour les transports publics.",
  "El ayuntamiento abrirá la biblioteca municipal también los domingos por la tarde.",
  "La squadra ha vinto la partita grazie a un gol nei minuti finali.",
  "De gemeente wil meer fietspaden aanleggen in het centrum van de stad.",
  "Regeringen presenterade en ny plan för bostäder och kollektivtrafik.",
  "Rząd przedstawił nowy plan budowy mieszkań i dróg w całym kraju.",
  "Hükümet dün toplu taşıma için yeni önlemler açıkladı.",
  "Η κυβέρνηση ανακοίνωσε χθες νέα μέτρα για τις δημόσιες συγκοινωνίες.",
  "أعلنت الحكومة أمس عن إجراءات جديدة للنقل العام.",
  "Київ є столицею та найбільшим містом України.",
];

/** What a detection answers, as one string to compare. */
const answer = (found: Detection | ReturnType<typeof packageEld.detect>) =>
  JSON.stringify([found.language, found.isReliable(), found.isReliable(1), found.getScores()]);

test("the detector answers as the package on the docs and texts of many languages", () => {
  const texts = samples();
  expect(texts.length).toBeGreaterThan(300);
  const differing = texts.filter((text) => answer(detectLanguage(text)) !== answer(packageEld.detect(text)));
  expect(differing).toEqual([]);
});

test("the detector answers as the package on arbitrary text", () => {
  const letters = fc.constantFrom(
    ..."abcdefghijklmnopqrstuvwxyz  'éüßøñçłşğ’`-ДжяЖΩλאבعربकखがカ漢한\uD83D\uDE00\uD800",
  );
  const text = fc.oneof(
    fc.string({ maxLength: 1200 }),
    fc.string({ unit: letters, maxLength: 400 }),
    fc.string({ unit: "binary", maxLength: 300 }),
  );
  fc.assert(
    fc.property(text, (t) => answer(detectLanguage(t)) === answer(packageEld.detect(t))),
    { numRuns: 3000 },
  );
});

test("bundled with the tables as the executable carries them, it answers as the package", async () => {
  const built = await Bun.build({
    entrypoints: [join(root, "src", "text", "eld-data.ts")],
    outdir: out,
    target: "bun",
    plugins: [await detectorTables()],
  });
  expect(built.success).toBe(true);
  const bundle = built.outputs[0]!.path;
  // The package's object literal is not in the bundle: it alone is larger than the bundle.
  expect(statSync(bundle).size).toBeLessThan(statSync(TABLES).size);
  const { detectLanguage: packedDetect } = (await import(bundle)) as { detectLanguage: typeof detectLanguage };
  const texts = samples();
  const differing = texts.filter((text) => answer(packedDetect(text)) !== answer(packageEld.detect(text)));
  expect(differing).toEqual([]);
});
