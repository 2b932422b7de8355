/**
 * The dashboard's languages, and the choice among them: the one remembered from the
 * header's switch, else the best match for the browser's languages, else English.
 */
import type { Catalogue } from "./catalogue";
import { de } from "./de";
import { en } from "./en";
import { es } from "./es";
import { fr } from "./fr";
import { ja } from "./ja";
import { ko } from "./ko";
import { zhCN } from "./zh-CN";

export const LOCALES = ["en", "zh-CN", "ja", "ko", "de", "fr", "es"] as const;
export type Locale = (typeof LOCALES)[number];

/** Each language named in itself, for the switch. */
export const LOCALE_NAMES: Record<Locale, string> = {
  en: "English",
  "zh-CN": "简体中文",
  ja: "日本語",
  ko: "한국어",
  de: "Deutsch",
  fr: "Français",
  es: "Español",
};

export const CATALOGUES: Record<Locale, Catalogue> = { en, "zh-CN": zhCN, ja, ko, de, fr, es };

export const isLocale = (s: unknown): s is Locale =>
  typeof s === "string" && (LOCALES as readonly string[]).includes(s);

/** Language and script of a tag, with the likely script filled in: zh → zh-Hans, zh-TW → zh-Hant. */
function languageScript(tag: string): string | undefined {
  try {
    const l = new Intl.Locale(tag).maximize();
    return `${l.language}-${l.script ?? ""}`;
  } catch {
    return undefined;
  }
}

/**
 * The first of the browser's languages (in its order of preference) that one of
 * ours serves: the same language in the same script (de-AT → de, zh-SG → zh-CN,
 * but zh-TW, written in Traditional characters, is not served by zh-CN).
 */
export function matchLocale(preferred: readonly string[]): Locale {
  const ours = LOCALES.map((l) => [languageScript(l), l] as const);
  for (const tag of preferred) {
    const want = languageScript(tag);
    const hit = ours.find(([ls]) => ls === want);
    if (hit) return hit[1];
  }
  return "en";
}
