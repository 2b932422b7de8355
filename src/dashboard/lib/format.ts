/** Small formatters for numbers, sizes and times, in the browser's locale. */

const numberFmt = new Intl.NumberFormat();

/** 12345 → "12,345". */
export const formatNumber = (n: number): string => numberFmt.format(n);

/** 1536 → "1.5 KB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", 30],
  ["month", 12],
  ["year", Infinity],
];

/** An ISO time as "3 minutes ago"; null → the fallback. */
export function timeAgo(iso: string | null | undefined, fallback = "never"): string {
  if (!iso) return fallback;
  let diff = (new Date(iso).getTime() - Date.now()) / 1000;
  if (Number.isNaN(diff)) return fallback;
  if (Math.abs(diff) < 10) return "just now";
  for (const [unit, size] of STEPS) {
    if (Math.abs(diff) < size) return rtf.format(Math.round(diff), unit);
    diff /= size;
  }
  return rtf.format(Math.round(diff), "year");
}

const dateFmt = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** An ISO time in full, for tooltips and <time> titles. */
export const formatDate = (iso: string): string => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateFmt.format(d);
};

/** "1 source" / "3 sources". */
export const plural = (n: number, one: string, many = `${one}s`): string =>
  `${formatNumber(n)} ${n === 1 ? one : many}`;

/** A score in [0, 1] with three decimals. */
export const formatScore = (s: number): string => s.toFixed(3);
