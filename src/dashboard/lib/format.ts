/**
 * Numbers, sizes, scores and times formatted for the dashboard's language
 * (i18n/index.ts); the formatters are made once per language.
 */
import { locale, t } from "../i18n";

type Made<T> = Map<string, T>;
const once = <T>(cache: Made<T>, key: string, make: () => T): T => {
  let v = cache.get(key);
  if (!v) cache.set(key, (v = make()));
  return v;
};
const numbers: Made<Intl.NumberFormat> = new Map();
const times: Made<Intl.RelativeTimeFormat> = new Map();
const dates: Made<Intl.DateTimeFormat> = new Map();

/** 12345 → "12,345" (en), "12.345" (de). */
export const formatNumber = (n: number): string =>
  once(numbers, locale(), () => new Intl.NumberFormat(locale())).format(n);

const UNITS = ["byte", "kilobyte", "megabyte", "gigabyte", "terabyte"] as const;

/** 1536 → "1.5 kB" (en), "1,5 kB" (de); steps of 1024; under 1024, "512 B" everywhere. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${formatNumber(n)} B`;
  let v = n;
  let i = 0;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  const digits = v < 10 ? 1 : 0;
  const key = `${locale()} ${UNITS[i]} ${digits}`;
  return once(numbers, key, () => {
    const opts = { style: "unit", unit: UNITS[i], unitDisplay: "short" } as const;
    return new Intl.NumberFormat(locale(), { ...opts, minimumFractionDigits: digits, maximumFractionDigits: digits });
  }).format(v);
}

/** A number with `digits` decimals, always shown: scores and figures. */
export const formatFixed = (n: number, digits: number): string =>
  once(numbers, `${locale()} .${digits}`, () => {
    return new Intl.NumberFormat(locale(), { minimumFractionDigits: digits, maximumFractionDigits: digits });
  }).format(n);

/** A score in [0, 1] with three decimals. */
export const formatScore = (s: number): string => formatFixed(s, 3);

const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", 30],
  ["month", 12],
  ["year", Infinity],
];

/** An ISO time as "3 minutes ago"; null → the fallback ("never"). */
export function timeAgo(iso: string | null | undefined, fallback = t("time.never")): string {
  if (!iso) return fallback;
  let diff = (new Date(iso).getTime() - Date.now()) / 1000;
  if (Number.isNaN(diff)) return fallback;
  if (Math.abs(diff) < 10) return t("time.justNow");
  const rtf = once(times, locale(), () => new Intl.RelativeTimeFormat(locale(), { numeric: "auto" }));
  for (const [unit, size] of STEPS) {
    if (Math.abs(diff) < size) return rtf.format(Math.round(diff), unit);
    diff /= size;
  }
  return rtf.format(Math.round(diff), "year");
}

/** An ISO time in full, for tooltips and <time> titles. */
export const formatDate = (iso: string): string => {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const fmt = once(
    dates,
    locale(),
    () => new Intl.DateTimeFormat(locale(), { dateStyle: "medium", timeStyle: "short" }),
  );
  return fmt.format(d);
};

/** A day only (an expiry date). */
export const formatDay = (iso: string): string => {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return once(dates, `${locale()} day`, () => new Intl.DateTimeFormat(locale(), { dateStyle: "medium" })).format(d);
};

/** 42 → "42%" (en), "42 %" (de, fr). */
export const formatPercent = (pct: number): string =>
  once(numbers, `${locale()} %`, () => new Intl.NumberFormat(locale(), { style: "percent" })).format(pct / 100);

const names: Made<Intl.DisplayNames> = new Map();

/** "ja" → "Japanese" (en), "日语" (zh-CN); `und` (no language told) → "undetermined" in the dashboard's language. */
export function languageName(code: string): string {
  if (code === "und") return t("language.undetermined");
  try {
    return once(names, locale(), () => new Intl.DisplayNames([locale()], { type: "language" })).of(code) ?? code;
  } catch {
    return code;
  }
}
