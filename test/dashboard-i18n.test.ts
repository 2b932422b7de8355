/**
 * The dashboard's message catalogues (src/dashboard/i18n): every language has every
 * key of English (the type says so too), nothing more, and the same {placeholders};
 * plural messages have the categories the language's Intl.PluralRules can pick; and
 * the browser's languages choose the right catalogue.
 */
import { describe, expect, test } from "bun:test";
import type { Message } from "../src/dashboard/i18n/catalogue";
import { en } from "../src/dashboard/i18n/en";
import { CATALOGUES, LOCALES, matchLocale } from "../src/dashboard/i18n/locales";

const placeholders = (m: Message): string[] => {
  const texts = typeof m === "string" ? [m] : Object.values(m);
  return [...new Set(texts.flatMap((s) => [...s.matchAll(/\{(\w+)\}/g)].map((x) => x[1]!)))].sort();
};
const english = en as Record<string, Message>;

describe.each(LOCALES.filter((l) => l !== "en"))("catalogue %s", (locale) => {
  const cat = CATALOGUES[locale] as Record<string, Message>;

  test("has every English key and no other", () => {
    const missing = Object.keys(english).filter((k) => !(k in cat));
    const extra = Object.keys(cat).filter((k) => !(k in english));
    expect({ locale, missing, extra }).toEqual({ locale, missing: [], extra: [] });
  });

  test("uses the same placeholders as English in every message", () => {
    const wrong = Object.keys(english)
      .filter((k) => k in cat && placeholders(cat[k]!).join() !== placeholders(english[k]!).join())
      .map((k) => `${k}: ${placeholders(cat[k]!).join()} ≠ ${placeholders(english[k]!).join()}`);
    expect(wrong).toEqual([]);
  });

  test("a plural message stays plural, with only categories the language has", () => {
    const categories = new Set<string>(new Intl.PluralRules(locale).resolvedOptions().pluralCategories);
    const wrong = Object.keys(english).flatMap((k) => {
      const m = cat[k];
      if (typeof english[k] === "string") return typeof m === "string" ? [] : [`${k}: not a string`];
      if (typeof m !== "object") return [`${k}: not plural`];
      return Object.keys(m)
        .filter((c) => !categories.has(c))
        .map((c) => `${k}: ${c}`);
    });
    expect(wrong).toEqual([]);
  });

  test("is not English left in place", () => {
    const same = Object.keys(english).filter(
      (k) =>
        typeof english[k] === "string" && english[k] === cat[k] && /[a-z]{4,} [a-z]{4,}/.test(english[k] as string),
    );
    expect(same).toEqual([]);
  });
});

describe("the browser's languages choose the catalogue", () => {
  test.each([
    [["zh-CN", "en"], "zh-CN"],
    [["zh"], "zh-CN"],
    [["zh-SG"], "zh-CN"],
    [["zh-TW", "ja"], "ja"],
    [["de-AT"], "de"],
    [["fr-CA", "en"], "fr"],
    [["es-419"], "es"],
    [["ko-KR"], "ko"],
    [["pt-BR", "es"], "es"],
    [["pt-BR"], "en"],
    [[], "en"],
    [["not a tag", "ja-JP"], "ja"],
  ])("%p → %s", (languages, locale) => {
    expect(matchLocale(languages)).toBe(locale as (typeof LOCALES)[number]);
  });
});
