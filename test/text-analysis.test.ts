/**
 * Text analysis (src/text): the ASCII fast path gives exactly what the general path
 * gives, and chunks and queries meet at the same terms.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { analyseAnyText, analyseChunk, analyseForIndex, analyseQuery } from "../src/text/analyze";
import { DocumentLanguages } from "../src/text/detect";
import { embeddingText } from "../src/text/embedding-text";
import { bigrams } from "../src/text/terms";
import { type Word, wordsOf } from "../src/text/words";

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

describe("a document's chunks", () => {
  // Japanese prose with a German sentence: the document's Latin words are German.
  const JAPANESE =
    "ネットワークの設定は、画面右上のメニューから開きます。一覧から接続したいネットワークを選び、" +
    "パスワードを入力してください。接続できない場合は、ルーターの電源を入れ直してから、もう一度お試しください。" +
    "Die Einstellungen öffnen Sie über das Menü oben rechts.";
  const CODE =
    "// Opens the network settings and waits until the connection is established\nopenSettings(network);\nwaitForConnection(timeout);";

  test("with a few words of a script take the language their document's last chunk had for it", () => {
    const doc = new DocumentLanguages();
    expect(analyseForIndex(JAPANESE, "auto", false, doc).terms).toContain("einstell");
    // Alone, `Settings` is English (`set`); in this document its Latin words are German.
    const chunk = "接続が完了したら Settings を確認してください。";
    expect(analyseChunk(chunk, "auto").terms.split(" ")).toContain("set");
    expect(analyseForIndex(chunk, "auto", false, doc).terms.split(" ")).toContain("setting");
  });

  test("written mainly in another script do not decide the language of the document's prose", () => {
    const doc = new DocumentLanguages();
    analyseForIndex(JAPANESE, "auto", false, doc);
    analyseForIndex(CODE, "auto", false, doc);
    // The English listing leaves the Latin words of the Japanese prose German.
    const chunk = "接続が完了したら Settings を確認してください。";
    expect(analyseForIndex(chunk, "auto", false, doc).terms.split(" ")).toContain("setting");
  });

  test("of numbers alone are analysed as alone, on either path", () => {
    for (const tail of ["", " ·"]) {
      const doc = new DocumentLanguages();
      analyseForIndex(ENGLISH, "auto", false, doc);
      const text = `20240101 1234567${tail}`;
      expect(analyseForIndex(text, "auto", false, doc).grams).toBe(analyseChunk(text, "auto").grams);
    }
  });

  test("written mainly in another script than their document are detected on their own", () => {
    const doc = new DocumentLanguages();
    analyseForIndex(JAPANESE, "auto", false, doc);
    // English comments in a Japanese manual whose Latin words so far were German: English.
    expect(analyseForIndex(CODE, "auto", true, doc)).toEqual({ ...analyseChunk(CODE, "auto"), embedded: CODE });
    expect(analyseChunk(CODE, "auto").terms).toContain("connect establish");
  });

  test("count words, not numbers, whether their text is ASCII or not", () => {
    for (const tail of ["", " ·"]) {
      const doc = new DocumentLanguages();
      analyseForIndex(GERMAN, "auto", false, doc);
      // One word and nine numbers: a few words, so the document's language (German), on either path.
      const terms = analyseForIndex(`Settings 1 2 3 4 5 6 7 8 9${tail}`, "auto", false, doc).terms.split(" ");
      expect(terms).toContain("setting");
    }
  });

  test("of a document translated in part keep their own language", () => {
    const doc = new DocumentLanguages();
    const finnish = "Toisinaan tulostimet syöttävät paperin väärin ja siten jumittuvat tulostimen sisälle.";
    expect(analyseForIndex(finnish, "auto", false, doc).terms).toBe(analyseChunk(finnish, "auto").terms);
    // The English body after a Finnish introduction is English, not Finnish.
    expect(analyseForIndex(ENGLISH, "auto", false, doc).terms).toBe(analyseChunk(ENGLISH, "auto").terms);
    expect(analyseChunk(ENGLISH, "auto").terms).toContain("rehears");
  });

  test("are analysed alone as they were, when their document's first chunk agrees", () => {
    const doc = new DocumentLanguages();
    for (const text of [ENGLISH, `${ENGLISH} Then the sonata's second movement.`])
      expect(analyseForIndex(text, "auto", false, doc).terms).toBe(analyseChunk(text, "auto").terms);
  });
});

describe("the word breaker's one pass over a text's runs", () => {
  test("splits each run as it would alone", () => {
    const runs = ["東京は日本の首都です", "ラズベリーパイ", "北京是中国的首都", "ภาษาไทยง่ายนิดเดียว", "長城很長"];
    const ok: Word = { text: "ok", script: "latin" };
    const alone = runs.map((r) => wordsOf(r));
    expect(wordsOf(runs.join("、 ok "))).toEqual(alone.flatMap((words, i) => (i ? [ok, ...words] : words)));
    expect(alone.flat().length).toBeGreaterThan(runs.length);
  });

  test("pairs count characters, not UTF-16 units", () => {
    const out: string[] = [];
    bigrams("𠮷野家です", out);
    expect(out).toEqual(["𠮷野", "野家", "家で", "です"]);
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

describe("a query's count", () => {
  test("is its distinct terms: words that share a term count once", () => {
    const runs = analyseQuery("running runs", "en");
    expect([runs.terms, runs.count]).toEqual(["run", 1]);
    expect(analyseQuery("Haus Häuser", "de").count).toBe(analyseQuery("Haus Häuser", "de").terms.split(" ").length);
    expect(analyseQuery("首都 首都 长城", "auto").count).toBe(2);
  });

  test("is the number of terms the terms clause holds, on any text", () => {
    // Inflected forms of a few words (that share terms), stop words, and anything at all.
    const forms = ["running", "runs", "run", "Haus", "Häuser", "houses", "house", "首都", "the", "and", "столицы"];
    const text = fc.oneof(
      fc.array(fc.constantFrom(...forms), { maxLength: 6 }).map((w) => w.join(" ")),
      fc.string(),
    );
    fc.assert(
      fc.property(text, fc.constantFrom(...SETTINGS), (text, setting) => {
        const q = analyseQuery(text, setting);
        expect(q.count).toBe(q.terms ? q.terms.split(" ").length : 0);
      }),
      { numRuns: 300 },
    );
  });
});
