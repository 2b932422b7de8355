/**
 * Retrieval in the languages a team writes in (docs/languages.md): words of Chinese,
 * Japanese, Thai and Korean text, German compound parts and Russian inflections are
 * found in keyword, vector and hybrid mode; a fixed language and `auto` agree on text of
 * one language; a pipeline made before languages (`legacy`) keeps answering as it did.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { updateCollection } from "../src/db/repo/collections";
import { makeApp, type TestApp } from "./support/app";
import { Client, waitFor } from "./support/ingest";
import { FINDS, IN_PART, OTHER, TEXTS } from "./support/languages";

let t: TestApp;
let c: Client;

beforeAll(async () => {
  t = await makeApp({ workers: 1, queryRate: 100_000, queryBurst: 100_000 });
  c = await Client.create(t);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

/** A pipeline holding every text, and a key to query it. */
async function pipelineOf(body: Record<string, unknown>, before?: (id: string) => Promise<void>) {
  const id = await c.pipeline({ name: `langs ${JSON.stringify(body)}`, ...body });
  await before?.(id);
  for (const [lang, text] of Object.entries(TEXTS)) await c.addText(id, text, lang);
  await c.allSettled(id);
  return { id, key: await c.key(id) };
}

async function first(key: string, query: string, mode: string): Promise<{ name: string | null; body: any }> {
  const r = await c.query(key, { query, mode, topK: 3 });
  if (r.status !== 200) throw new Error(`${query}: ${r.status} ${r.text}`);
  return { name: r.body.results[0]?.metadata.sourceName ?? null, body: r.body };
}

describe("an auto pipeline on the built-in embedder", () => {
  let key: string;
  let id: string;
  beforeAll(async () => {
    ({ key, id } = await pipelineOf({ embeddingModel: "builtin" }));
  }, 60_000);

  for (const mode of ["keyword", "vector", "hybrid"])
    test.each(FINDS)(`${mode}: %p finds the %s text first`, async (query, lang) => {
      expect((await first(key, query, mode)).name).toBe(lang);
    });

  test("a word in both the Chinese and the Japanese text finds both first", async () => {
    for (const mode of ["keyword", "vector", "hybrid"]) {
      const r = await c.query(key, { query: "首都", mode, topK: 2 });
      const names = r.body.results.map((h: any) => h.metadata.sourceName).sort();
      expect(names).toEqual(["ja", "zh"]);
    }
  });

  test("the answer says which language the query was analysed as", async () => {
    expect((await first(key, "日本の首都", "keyword")).body.queryLanguage).toBe("ja");
    expect((await first(key, "长城", "keyword")).body.queryLanguage).toBe("zh");
    expect((await first(key, "столицы Москвы", "keyword")).body.queryLanguage).toBe("ru");
  });

  test("the pipeline reports its language and the index's", async () => {
    const p = await c.getPipeline(id);
    expect(p.language).toBe("auto");
    expect(p.indexLanguage).toBe("auto");
  });
});

describe("a page translated in part, in an auto pipeline", () => {
  test("its Finnish paragraph between English ones is found by Finnish words in other forms", async () => {
    const id = await c.pipeline({ name: "translated in part", embeddingModel: "builtin" });
    await c.addText(id, `${IN_PART.english1} ${IN_PART.finnish} ${IN_PART.english2}`, "page");
    await c.addText(id, TEXTS.en, "other");
    await c.allSettled(id);
    const key = await c.key(id);
    for (const mode of ["keyword", "hybrid"]) {
      const { name, body } = await first(key, "Tulostus kirjekuoreen tulostimella", mode);
      expect(name).toBe("page");
      expect(body.queryLanguage).toBe("fi");
    }
    // The English around it is still English.
    expect((await first(key, "printing envelopes", "keyword")).name).toBe("page");
  });
});

describe("a fixed language and auto agree on text of one language", () => {
  test.each([
    ["ja", ["富士山", "日本の首都", "首都"]],
    ["de", ["Krankenversicherung", "Haus", "Pflege"]],
    ["ru", ["столицы", "Москва", "крупнейший город"]],
  ] as const)("%s", async (lang, queries) => {
    const docs = { [lang]: TEXTS[lang], other: OTHER[lang] };
    const ids: string[] = [];
    for (const language of [lang, "auto"]) {
      const id = await c.pipeline({ name: `one ${lang} ${language}`, language, embeddingModel: "builtin" });
      for (const [name, text] of Object.entries(docs)) await c.addText(id, text, name);
      await c.allSettled(id);
      ids.push(await c.key(id));
    }
    for (const q of queries) {
      const [fixed, auto] = await Promise.all(ids.map((k) => first(k, q, "keyword")));
      expect(fixed.name).toBe(lang);
      expect(auto.name).toBe(lang);
      expect(fixed.body.results.map((r: any) => r.score)).toEqual(auto.body.results.map((r: any) => r.score));
    }
  });
});

describe("the language setting", () => {
  test("an unknown language and legacy are refused with 400 naming the field", async () => {
    for (const language of ["xx", "legacy", ""]) {
      const r = await t.call("POST", "/api/rag/pipelines", { cookie: c.cookie, body: { name: "bad", language } });
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body.error)).toContain("language");
    }
  });

  test("GET /api/languages lists the codes a pipeline takes", async () => {
    const r = await t.call("GET", "/api/languages", { cookie: c.cookie });
    expect(r.status).toBe(200);
    const codes = r.body.languages.map((l: { code: string }) => l.code);
    for (const code of ["zh", "ja", "ko", "th", "de", "fr", "ru", "en", "es"]) expect(codes).toContain(code);
    expect(r.body.default).toBe("auto");
  });
});

describe("a pipeline made before languages", () => {
  let legacy: { id: string; key: string };
  beforeAll(async () => {
    legacy = await pipelineOf({ embeddingModel: "builtin" }, (id) =>
      t.services.db.atomically((tx) => updateCollection(tx, id, { language: "legacy", indexLanguage: "legacy" })),
    );
  }, 60_000);

  test("reports legacy, answers without a query language, and finds what it found before", async () => {
    const p = await c.getPipeline(legacy.id);
    expect(p.language).toBe("legacy");
    const de = await first(legacy.key, "Krankenversicherungsgesetz", "keyword");
    expect(de.name).toBe("de");
    expect(de.body.queryLanguage).toBeUndefined();
    // As before languages: a Chinese word inside a clause finds nothing by keyword.
    expect((await first(legacy.key, "首都", "keyword")).name).toBeNull();
  });

  test("takes a language at its next re-index", async () => {
    const r = await t.call("PATCH", `/api/rag/pipelines/${legacy.id}`, {
      cookie: c.cookie,
      body: { language: "auto" },
    });
    expect(r.status).toBe(200);
    expect(r.body.language).toBe("auto");
    expect(r.body.indexLanguage).toBe("legacy");
    expect((await first(legacy.key, "长城", "keyword")).name).toBeNull();
    const re = await t.call("POST", `/api/rag/pipelines/${legacy.id}/reindex`, { cookie: c.cookie, body: {} });
    expect(re.status).toBeLessThan(300);
    await c.allSettled(legacy.id);
    await waitFor("the re-index to switch", async () => (await c.getPipeline(legacy.id)).indexLanguage === "auto");
    expect((await first(legacy.key, "长城", "keyword")).name).toBe("zh");
  });
});
