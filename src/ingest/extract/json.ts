/**
 * JSON to text that keeps field names: each record becomes `path: value` lines, nested
 * paths dotted (`a.b: v`), records separated by a blank line. JSON Lines works too.
 */
import { nestsDeeperThan, TOO_DEEP } from "../../tools/json-depth";
import { ExtractionError, unreadable } from "./errors";
import { TextBudget } from "./text-budget";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Renders JSON (or JSON Lines) as one paragraph per record. */
export function jsonToText(text: string): string {
  const budget = new TextBudget("json");
  return records(parse(text))
    .map((r) => flatten(r, "", budget).join("\n"))
    .filter(Boolean)
    .join("\n\n");
}

function parse(text: string): Json {
  // flatten() recurses once per level: refuse what would overflow the stack first.
  if (nestsDeeperThan(text)) throw new ExtractionError(TOO_DEEP);
  try {
    return JSON.parse(text) as Json;
  } catch (err) {
    const lines = text.split("\n").filter((l) => l.trim());
    try {
      if (lines.length > 1) return lines.map((l) => JSON.parse(l) as Json);
    } catch {}
    throw unreadable("json", err);
  }
}

const isRecord = (v: Json): v is { [key: string]: Json } => typeof v === "object" && v !== null && !Array.isArray(v);

/** An array is a list of records; so is an object with exactly one list of objects (`{data: […], meta}`). */
function records(value: Json): Json[] {
  if (Array.isArray(value)) return value;
  if (!isRecord(value)) return [value];
  const lists = Object.entries(value).filter(([, v]) => Array.isArray(v) && v.length > 0 && v.every(isRecord));
  if (lists.length !== 1) return [value];
  const [key, list] = lists[0]!;
  const rest = { ...value };
  delete rest[key];
  return [rest, ...(list as Json[])];
}

/** A value's `path: value` lines; each line counts against `budget` (a long path repeats on every one). */
function flatten(value: Json, path: string, budget: TextBudget): string[] {
  if (value === null || value === "") return [];
  if (Array.isArray(value)) {
    if (value.some((v) => typeof v === "object" && v !== null)) {
      return value.flatMap((v, i) => flatten(v, `${path}[${i}]`, budget));
    }
    const items = value.filter((v) => v !== null && v !== "");
    return items.length ? [counted(`${path || "values"}: ${items.join(", ")}`, budget)] : [];
  }
  if (isRecord(value)) return Object.entries(value).flatMap(([k, v]) => flatten(v, path ? `${path}.${k}` : k, budget));
  return [counted(path ? `${path}: ${value}` : String(value), budget)];
}

function counted(line: string, budget: TextBudget): string {
  budget.take(line.length + 1);
  return line;
}
