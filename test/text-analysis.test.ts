/**
 * Text analysis (src/text): the ASCII fast path gives exactly what the general path
 * gives, and chunks and queries meet at the same terms.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { analyseAnyText, analyseChunk, analyseForIndex, analyseQuery } from "../src/text/analyze";
import { embeddingText } from "../src/text/embedding-text";

const SETTINGS = ["auto", "en", "de", "fr", "ru", "zh"];
const ENGLISH =
  "The cellist rehearsed the Brahms sonata in E minor, tuning the C string slightly flat for the dark opening.";
const GERMAN = "Die Krankenversicherungsgesetze regeln seit 1883, wer in den Haeusern versichert ist.";

describe("the ASCII path", () => {
  test.each(SETTINGS)("equals the general path on prose, code and numbers (%s)", (setting) => {
    for (const text of [ENGLISH, GERMAN, "x2 v1.2 foo_bar ERR_7731 PX-9912-B 8817", "", "   ", "a\tb\r\nc"])
      expect(analyseChunk(text, setting)).toEqual(analyseAnyText(text, setting));
  });

  test("equals the general path on any printable ASCII", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[ -~\t\n]{0,300}$/), fc.constantFrom(...SETTINGS), (text, setting) => {
        expect(analyseChunk(text, setting)).toEqual(analyseAnyText(text, setting));
      }),
      { numRuns: 300 },
    );
  });
});

test("ingestion's one split gives what analyseChunk and embeddingText give apart", () => {
  for (const text of [
    ENGLISH,
    GERMAN,
    "北京是中国的首都，长城很长。",
    "서울은 한강이 흐르는 도시",
    "東京 ok 2024 Ünïcode",
  ])
    for (const builtin of [true, false])
      expect(analyseForIndex(text, "auto", builtin)).toEqual({
        ...analyseChunk(text, "auto"),
        embedded: builtin ? embeddingText(text) : text,
      });
});

describe("chunks and queries meet", () => {
  test.each([
    ["北京是中国的首都", "首都"],
    ["東京は日本の首都です", "日本の首都"],
    ["서울은 한강이 흐르는 도시", "한강"],
    ["Москва является столицей России", "столицы"],
    ["Das Krankenversicherungsgesetz gilt", "Krankenversicherung"],
    ["Die alten Häuser stehen am Markt", "Haus"],
  ])("%s ⟵ %s", (text, query) => {
    const chunk = analyseChunk(text, "auto");
    const q = analyseQuery(query, "auto");
    const has = (list: string, of: string) => of.split(" ").some((t) => t && list.split(" ").includes(t));
    expect(has(chunk.terms, q.terms) || has(chunk.grams, q.grams)).toBe(true);
  });

  test("English text reaches the built-in embedders unchanged; CJK text split, with pairs", () => {
    expect(embeddingText(ENGLISH)).toBe(ENGLISH);
    expect(embeddingText("Krankenversicherungsgesetz, столица")).toBe("Krankenversicherungsgesetz, столица");
    expect(embeddingText("北京是中国的首都")).toBe("北京 是 中国 的 首都 北京 京是 是中 中国 国的 的首 首都");
  });
});

describe("a stemmer that throws", () => {
  test("leaves its word unstemmed instead of failing the chunk or the query", () => {
    // The Bulgarian stemmer throws on these; short Cyrillic queries are stemmed as Bulgarian too.
    const q = analyseQuery("Настройка прокси-сервера", "auto");
    expect(`${q.terms} ${q.variants}`.split(" ")).toContain("прокси");
    expect(analyseChunk("Зимен ден в планината, прокси сървър.", "bg").terms).toContain("зимен");
  });
});
