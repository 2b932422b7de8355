/**
 * The dashboard's words in the chosen language. `t(key, params)` gives a string,
 * `rich(key, parts)` a message with elements (links, code) put in its placeholders.
 * The choice is kept in localStorage; `<html lang>` follows it, and `useLocale()`
 * re-renders a component when it changes.
 */
import { type ComponentChildren, Fragment, h } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { Key, Message } from "./catalogue";
import { en } from "./en";
import { CATALOGUES, isLocale, type Locale, matchLocale } from "./locales";

export type { Key } from "./catalogue";
export { LOCALE_NAMES, LOCALES, type Locale } from "./locales";

const STORAGE_KEY = "ragd.locale";

/** The remembered choice, else the browser's best match. */
function initialLocale(): Locale {
  let saved: string | null = null;
  try {
    saved = localStorage.getItem(STORAGE_KEY);
  } catch {
    // storage blocked: fall back to the browser's languages
  }
  if (isLocale(saved)) return saved;
  return matchLocale(typeof navigator === "undefined" ? [] : (navigator.languages ?? [navigator.language]));
}

let current: Locale = initialLocale();
const listeners = new Set<(l: Locale) => void>();

/** The language the dashboard speaks now. */
export const locale = (): Locale => current;

/** Sets `<html lang>` to the current language. */
export function applyLang(): void {
  if (typeof document !== "undefined") document.documentElement.lang = current;
}

/** Switches language, remembers it and tells every `useLocale()`. */
export function setLocale(next: Locale): void {
  current = next;
  try {
    localStorage.setItem(STORAGE_KEY, next);
  } catch {
    // not remembered, still switched
  }
  applyLang();
  for (const fn of listeners) fn(next);
}

/** The current language, re-rendering the caller when it changes. */
export function useLocale(): Locale {
  const [l, setL] = useState(current);
  useEffect(() => {
    listeners.add(setL);
    setL(current);
    return () => void listeners.delete(setL);
  }, []);
  return l;
}

export type Params = Record<string, string | number>;

const pluralRules = new Map<Locale, Intl.PluralRules>();
const numbers = new Map<Locale, Intl.NumberFormat>();
const cached = <T>(map: Map<Locale, T>, make: (l: Locale) => T): T => {
  let v = map.get(current);
  if (!v) map.set(current, (v = make(current)));
  return v;
};

/** The message's text for `count`, by the language's plural rules. */
function textOf(msg: Message, count: unknown): string {
  if (typeof msg === "string") return msg;
  const n = typeof count === "number" ? count : 0;
  const category = cached(pluralRules, (l) => new Intl.PluralRules(l)).select(n);
  return msg[category] ?? msg.other;
}

const message = (key: Key): Message => (CATALOGUES[current][key] as Message | undefined) ?? en[key];
const show = (v: string | number) =>
  typeof v === "number" ? cached(numbers, (l) => new Intl.NumberFormat(l)).format(v) : v;

/** The message for `key` with its placeholders filled; numbers are formatted for the language. */
export function t(key: Key, params?: Params): string {
  const text = textOf(message(key), params?.count);
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (all, name: string) => (name in params ? show(params[name]!) : all));
}

/** Like `t`, but placeholders may be elements: `rich("x", { link: <a href="…">…</a> })`. */
export function rich(key: Key, parts: Record<string, ComponentChildren>): ComponentChildren {
  const text = textOf(message(key), parts.count);
  const pieces = text.split(/\{(\w+)\}/g);
  const out = pieces.map((p, i) => {
    if (i % 2 === 0) return p;
    const part = parts[p];
    return typeof part === "number" ? show(part) : (part ?? `{${p}}`);
  });
  return h(Fragment, null, ...out);
}
