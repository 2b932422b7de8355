/**
 * Retrieval sets in several languages, built at run time from what Debian's translated
 * guides install (never copied): each help page of `gnome-user-docs` (`gnome`) or each
 * section of `debian-reference-{en,de,fr,ja,zh-cn}` (`debref`) is a document, and its
 * title the query that should find it. Shared by bench/languages.ts and its `--ragd` mode.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type SetSource = "gnome" | "debref";

export interface Doc {
  title: string;
  body: string;
}

const GNOME = "/usr/share/help";
const DEBREF = "/usr/share/debian-reference";

/** Snowball stemmer (LanceDB's name) and compounding, by language directory. */
export const LANGS: Record<string, { stem: string; compounds?: true }> = {
  C: { stem: "English" },
  en: { stem: "English" },
  zh_CN: { stem: "English" },
  "zh-cn": { stem: "English" },
  ja: { stem: "English" },
  ko: { stem: "English" },
  de: { stem: "German", compounds: true },
  nl: { stem: "Dutch", compounds: true },
  sv: { stem: "Swedish", compounds: true },
  fi: { stem: "Finnish", compounds: true },
  da: { stem: "Danish", compounds: true },
  fr: { stem: "French" },
  es: { stem: "Spanish" },
  it: { stem: "Italian" },
  pt: { stem: "Portuguese" },
  ru: { stem: "Russian" },
};

/** The languages each source is run in when none are named. */
export const DEFAULT_LANGS: Record<SetSource, string> = {
  gnome: "C,zh_CN,ja,ko,de,fr,ru,nl,sv,fi",
  debref: "en,zh-cn,ja,de,fr",
};

const plain = (xml: string) =>
  xml
    .replace(/<[^>]+>/g, " ")
    .replace(/&[a-z#0-9]+;/g, " ")
    .replace(/\s+/g, " ")
    .trim();

/** GNOME help pages: the title, and the page without its title and info block. */
function gnomePages(lang: string): Doc[] {
  const dir = join(GNOME, lang, "gnome-help");
  const docs: Doc[] = [];
  for (const f of readdirSync(dir).filter((f) => f.endsWith(".page"))) {
    const page = readFileSync(join(dir, f), "utf8").replace(/<info>[\s\S]*?<\/info>/, "");
    const m = page.match(/<title[^>]*>([\s\S]*?)<\/title>/);
    if (!m) continue;
    const body = plain(page.slice(m.index! + m[0].length));
    if (body.length > 200) docs.push({ title: plain(m[1]!), body });
  }
  return docs;
}

/** Debian Reference sections: each h2/h3 heading, without its number, and the text up to the next. */
function debrefSections(lang: string): Doc[] {
  const docs: Doc[] = [];
  for (const f of readdirSync(DEBREF).filter((f) => f.endsWith(`.${lang}.html`))) {
    const parts = readFileSync(join(DEBREF, f), "utf8").split(/<h[23] class="title">/);
    for (const part of parts.slice(1)) {
      const end = part.search(/<\/h[23]>/);
      const title = plain(part.slice(0, end)).replace(/^[\dA-Z.]+\s+/, "");
      const body = plain(part.slice(end));
      if (body.length > 200 && title) docs.push({ title, body });
    }
  }
  return docs;
}

/** The set of one source in one language, or a sentence saying which package is missing. */
export function languageSet(source: SetSource, lang: string): Doc[] | string {
  const where = source === "gnome" ? join(GNOME, lang, "gnome-help") : DEBREF;
  if (!existsSync(where)) return `${where} is missing; install the package`;
  const docs = source === "gnome" ? gnomePages(lang) : debrefSections(lang);
  return docs.length ? docs : `no ${lang} documents in ${where}`;
}

/** The rank (0-based) of each query's own document in `ranked` (ids as strings), -1 when absent. */
export function rankOf(ranked: string[], own: number): number {
  return ranked.indexOf(String(own));
}

/** hit@10 and nDCG@10 of one relevant document per query, from its 0-based rank (-1: missing). */
export function scores(ranks: number[]): { hit: number; ndcg: number } {
  const top = ranks.filter((r) => r >= 0 && r < 10);
  return {
    hit: top.length / ranks.length,
    ndcg: top.reduce((s, r) => s + 1 / Math.log2(r + 2), 0) / ranks.length,
  };
}
