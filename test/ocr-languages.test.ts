/**
 * OCR languages (docs/API.md, "OCR"): GET /api/ocr/languages lists the built-in English and
 * each well-named `.traineddata` file of the data directory's ocr folder, and nothing else;
 * a pipeline takes exactly the languages listed; with Debian's Chinese and Japanese data in
 * that folder, `ocrLanguages: ["chi_sim", "jpn"]` reads pictures of both, and Japanese read
 * beside English keeps its characters together.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { OcrThread } from "../src/ingest/ocr/client";
import { makeApp, type TestApp, tempDir } from "./support/app";
import { Client } from "./support/ingest";
import { charErrorRate, OCR_LINES_BY_LANGUAGE, type OcrFixtureLanguage, ocrImageIn } from "./support/ocr-text";

let t: TestApp;
let c: Client;
beforeAll(async () => {
  t = await makeApp();
  c = await Client.create(t);
});
afterAll(() => t.close());

const ENG_BYTES = gunzipSync(
  readFileSync(require.resolve("@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz")),
).byteLength;

const languages = async () => {
  const r = await c.call("GET", "/api/ocr/languages");
  expect(r.status).toBe(200);
  return r.body.languages as { code: string; name: string; builtIn: boolean; bytes: number }[];
};

/** Puts a file of `bytes` bytes (not language data: the listing does not read contents) in the ocr folder. */
function place(dataDir: string, fileName: string, bytes: number): void {
  mkdirSync(join(dataDir, "ocr"), { recursive: true });
  writeFileSync(join(dataDir, "ocr", fileName), new Uint8Array(bytes));
}

describe("GET /api/ocr/languages", () => {
  test("needs a session", async () => {
    expect((await t.call("GET", "/api/ocr/languages")).status).toBe(401);
  });

  test("a new data directory has the built-in English only", async () => {
    const fresh = await makeApp();
    try {
      const cookie = await fresh.signup();
      const r = await fresh.call("GET", "/api/ocr/languages", { cookie });
      expect([r.status, r.body]).toEqual([
        200,
        { languages: [{ code: "eng", name: "English", builtIn: true, bytes: ENG_BYTES }] },
      ]);
    } finally {
      await fresh.close();
    }
  });

  test("lists each well-named .traineddata file, sorted, with its name and size; nothing else", async () => {
    const dataDir = t.dataDir;
    const good = { deu: 11, chi_sim: 12, jpn_vert: 13, aze_cyrl: 14, mine: 15, Kor: 16 };
    for (const [code, bytes] of Object.entries(good)) place(dataDir, `${code}.traineddata`, bytes);
    const bad = ["a b", "-x", ".hidden", "9lives", "x".repeat(41), "ünï", "deu.old", "fra.traineddata.gz"];
    for (const name of bad) place(dataDir, name.includes(".traineddata") ? name : `${name}.traineddata`, 5);
    place(dataDir, "spa.txt", 5);
    mkdirSync(join(dataDir, "ocr", "dir.traineddata"));

    expect(await languages()).toEqual([
      { code: "Kor", name: "Korean", builtIn: false, bytes: 16 },
      { code: "aze_cyrl", name: "Azerbaijani (Cyrillic)", builtIn: false, bytes: 14 },
      { code: "chi_sim", name: "Simplified Chinese", builtIn: false, bytes: 12 },
      { code: "deu", name: "German", builtIn: false, bytes: 11 },
      { code: "eng", name: "English", builtIn: true, bytes: ENG_BYTES },
      { code: "jpn_vert", name: "Japanese (vertical)", builtIn: false, bytes: 13 },
      { code: "mine", name: "mine", builtIn: false, bytes: 15 },
    ]);
  });

  test("a pipeline takes the languages listed and refuses a folder that looks like one", async () => {
    const listed = (await languages()).map((l) => l.code);
    const taken = await c.call("POST", "/api/rag/pipelines", { name: "Listed", ocrLanguages: listed.slice(0, 8) });
    expect(taken.status).toBe(201);
    const refused = await c.call("POST", "/api/rag/pipelines", { name: "Folder", ocrLanguages: ["dir"] });
    expect([refused.status, refused.body.error.details[0].field]).toEqual([400, "ocrLanguages"]);
  });

  test("an eng.traineddata file replaces the built-in English, and says so", async () => {
    const fresh = await makeApp();
    try {
      place(fresh.dataDir, "eng.traineddata", 7);
      const cookie = await fresh.signup();
      const r = await fresh.call("GET", "/api/ocr/languages", { cookie });
      expect(r.body.languages).toEqual([{ code: "eng", name: "English", builtIn: false, bytes: 7 }]);
    } finally {
      await fresh.close();
    }
  });

  test("is in the OpenAPI document with its answer's shape", async () => {
    const spec = (await t.call("GET", "/docs/openapi.json")).body;
    const op = spec.paths["/api/ocr/languages"].get;
    const schema = op.responses["200"].content["application/json"].schema;
    expect(Object.keys(schema.properties.languages.items.properties).sort()).toEqual([
      "builtIn",
      "bytes",
      "code",
      "name",
    ]);
  });
});

/** Debian's tesseract-ocr-<lang> data: /usr/share/tesseract-ocr/<version>/tessdata/<lang>.traineddata. */
function debianData(lang: string): string | undefined {
  const root = "/usr/share/tesseract-ocr";
  if (!existsSync(root)) return undefined;
  return readdirSync(root)
    .map((version) => join(root, version, "tessdata", `${lang}.traineddata`))
    .find((file) => existsSync(file));
}

const CJK: OcrFixtureLanguage[] = ["chi_sim", "jpn"];
const cjkData = CJK.map(debianData);
const haveCjk = cjkData.every(Boolean);
if (!haveCjk) {
  const why = "Debian's tesseract-ocr-chi-sim and tesseract-ocr-jpn are not installed";
  if (process.env.CI === "true") throw new Error(`${why} (.ci/run installs them)`);
  console.warn(`skipping the Chinese and Japanese OCR test: ${why}`);
}

/** Clean type drawn at 36 px: one character in ten may come back wrong (千 read as 干 is one). */
const MAX_CJK_CER = 0.1;

test.skipIf(!haveCjk)(
  'ocrLanguages ["chi_sim", "jpn"] reads Chinese and Japanese pictures once the data is in the ocr folder',
  async () => {
    const app = await makeApp();
    try {
      const client = await Client.create(app);
      mkdirSync(join(app.dataDir, "ocr"));
      for (const [i, lang] of CJK.entries()) copyFileSync(cjkData[i]!, join(app.dataDir, "ocr", `${lang}.traineddata`));
      const listed = (await client.call("GET", "/api/ocr/languages")).body.languages;
      expect(listed.map((l: { code: string; name: string }) => `${l.code} ${l.name}`)).toEqual([
        "chi_sim Simplified Chinese",
        "eng English",
        "jpn Japanese",
      ]);

      const pid = await client.pipeline({ name: "CJK scans", ocrLanguages: ["chi_sim", "jpn"] });
      for (const lang of CJK) await client.upload(pid, `${lang}.png`, await ocrImageIn(lang));
      const sources = await client.allSettled(pid, 120_000);
      expect(sources.map((s) => [s.name, s.status, s.error, s.ocr]).sort()).toEqual([
        ["chi_sim.png", "ready", null, { languages: ["chi_sim", "jpn"], pages: 1 }],
        ["jpn.png", "ready", null, { languages: ["chi_sim", "jpn"], pages: 1 }],
      ]);

      // A vector query returns every chunk of so small a pipeline, with its text.
      const found = await client.query(await client.key(pid), { query: "首都", mode: "vector", topK: 10 });
      const textOf = (name: string) =>
        found.body.results
          .filter((r: { metadata: { sourceName: string } }) => r.metadata.sourceName === name)
          .map((r: { content: string }) => r.content)
          .join("\n");
      for (const lang of CJK) {
        const expected = OCR_LINES_BY_LANGUAGE[lang].join("\n");
        expect(charErrorRate(textOf(`${lang}.png`), expected)).toBeLessThan(MAX_CJK_CER);
      }
    } finally {
      await app.close();
    }
  },
  150_000,
);

test.skipIf(!haveCjk)(
  "Japanese read beside English has no space put between its characters",
  async () => {
    const dataDir = tempDir();
    mkdirSync(join(dataDir, "ocr"));
    copyFileSync(cjkData[CJK.indexOf("jpn")]!, join(dataDir, "ocr", "jpn.traineddata"));
    const thread = new OcrThread();
    try {
      const job = { image: await ocrImageIn("jpn"), languages: ["eng", "jpn"], dataDir };
      const text = await thread.run(job, "the image", 60_000, new AbortController().signal);
      // Tesseract's own spacing gives "東京 は 日 本 の 首都 で す 。", which no word search finds.
      expect(text.trim().split("\n")).toEqual([...OCR_LINES_BY_LANGUAGE.jpn]);
    } finally {
      thread.stop();
    }
  },
  60_000,
);
