/**
 * The floors of src/ (docs/ARCHITECTURE.md, "Floors"): a file imports from its own
 * floor or the floors below it, never from one above, and files import each other in
 * no circle. Read from the source text: type-only imports count, since a type ties a
 * lower floor to a higher one as surely as a call does. The known exceptions are listed
 * with their reason, and each must still be there, so the lists shrink as they are fixed.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../src");

/**
 * Bottom first. A part is a directory of src/ (`db/`) or files at its root (`config-*.ts`);
 * parts of one floor may import each other.
 */
const FLOORS: { floor: string; parts: string[] }[] = [
  { floor: "tools", parts: ["tools/", "version.ts"] },
  { floor: "text and embedding", parts: ["text/", "embed/"] },
  { floor: "settings and log", parts: ["config.ts", "config-*.ts", "log.ts", "log-throttle.ts"] },
  { floor: "storage", parts: ["db/", "files/"] },
  { floor: "shared rules", parts: ["core/"] },
  { floor: "vectors", parts: ["vectors/"] },
  { floor: "ingestion", parts: ["ingest/"] },
  { floor: "retrieval", parts: ["retrieval/"] },
  { floor: "backup", parts: ["backup/"] },
  { floor: "HTTP", parts: ["http/"] },
  { floor: "features", parts: ["features/"] },
  {
    floor: "composition",
    parts: [
      "services.ts",
      "housekeeping.ts",
      "periodic-work.ts",
      "upkeep.ts",
      "app.ts",
      "main.ts",
      "cli/",
      "dashboard/",
    ],
  },
];

/** Imports that run upward today: `from` (a file) imports files under `to`. */
const KNOWN_UPWARD: { from: string; to: string; reason: string }[] = [
  {
    from: "http/auth.ts",
    to: "features/auth/",
    reason:
      "the session check every route group uses is built on the auth feature's service and cookie; moving it into features/auth/ changes every route file, not done yet",
  },
];

/** Circles of imports today: every file of a circle must be in `files`, or under `under`. */
const KNOWN_CIRCLES: { files?: string[]; under?: string; reason: string }[] = [
  {
    files: ["config.ts", "config-storage.ts"],
    reason: "config.ts calls config-storage.ts's check, which takes the Config type config.ts defines",
  },
  {
    files: ["db/client.ts", "db/store.ts"],
    reason: "the client builds the SQLite Store; store.ts names the client's Db type",
  },
  {
    files: ["db/repo/task-batches.ts", "db/repo/tasks.ts"],
    reason: "tasks.ts ends tasks through the batched endings; task-batches.ts names the TaskEnding type",
  },
  {
    files: ["vectors/chunk-arrow.ts", "vectors/meta-index.ts", "vectors/tables.ts"],
    reason: "the chunk table's rows, their Arrow form and its metadata terms use each other's helpers",
  },
  {
    files: ["cli/user.ts", "cli/user-admin.ts"],
    reason: "`ragd user` runs its administration subcommands, which open the database the way it does",
  },
];

/** Every .ts/.tsx file under src/ (declarations and built assets left out), relative to src/. */
function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "dist" || e.name === "generated" ? [] : sourceFiles(path);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts") ? [relative(SRC, path)] : [];
  });
}

const IMPORT_FORMS = [
  /^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gm,
  /^\s*import\s*["']([^"']+)["']/gm,
  /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  /\brequire\(\s*["']([^"']+)["']\s*\)/g,
];

/** The src/ files a file imports, by relative specifier (packages and files outside src/ left out). */
function importsOf(file: string, known: Set<string>): string[] {
  const text = readFileSync(join(SRC, file), "utf8");
  const specs = IMPORT_FORMS.flatMap((re) => [...text.matchAll(re)].map((m) => m[1]!));
  const out = new Set<string>();
  for (const spec of specs.filter((s) => s.startsWith("."))) {
    const base = relative(SRC, resolve(SRC, dirname(file), spec));
    const hit = [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`].find((c) => known.has(c));
    if (hit) out.add(hit);
  }
  return [...out];
}

const files = sourceFiles();
const graph = new Map(files.map((f) => [f, importsOf(f, new Set(files))]));

function matches(file: string, part: string): boolean {
  if (part.endsWith("/")) return file.startsWith(part);
  if (part.includes("*")) return new RegExp(`^${part.replaceAll(".", "\\.").replaceAll("*", "[^/]*")}$`).test(file);
  return file === part;
}

/** The floor's index, bottom 0; -1 for a file on none. */
const floorOf = (file: string) => FLOORS.findIndex((f) => f.parts.some((p) => matches(file, p)));

/** Each import from a floor to a higher one, as `from → to`. */
function upwardImports(): { from: string; to: string }[] {
  return [...graph].flatMap(([from, targets]) =>
    targets.filter((to) => floorOf(to) > floorOf(from)).map((to) => ({ from, to })),
  );
}

/** The circles of the import graph (its strongly connected parts of two files or more), by Tarjan's algorithm. */
function circles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) visit(w);
      if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, low.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const circle: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      circle.push(w);
    } while (w !== v);
    if (circle.length > 1) out.push(circle.sort());
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return out;
}

const isKnownUpward = (i: { from: string; to: string }) =>
  KNOWN_UPWARD.some((k) => i.from === k.from && i.to.startsWith(k.to));
const knownCircle = (c: string[], k: (typeof KNOWN_CIRCLES)[number]) =>
  c.every((f) => (k.under ? f.startsWith(k.under) : k.files!.includes(f)));

describe("layers", () => {
  test("every file of src/ is on a floor", () => {
    expect(files.length).toBeGreaterThan(300);
    expect(files.filter((f) => floorOf(f) < 0)).toEqual([]);
  });

  test("no import runs upward, except the known ones", () => {
    const found = upwardImports();
    const named = (i: { from: string; to: string }) =>
      `${i.from} (${FLOORS[floorOf(i.from)]!.floor}) → ${i.to} (${FLOORS[floorOf(i.to)]!.floor})`;
    expect(found.filter((i) => !isKnownUpward(i)).map(named)).toEqual([]);
    // An exception that no longer happens leaves the list.
    expect(KNOWN_UPWARD.filter((k) => !found.some((i) => i.from === k.from && i.to.startsWith(k.to)))).toEqual([]);
  });

  test("files import each other in no circle, except the known ones", () => {
    const found = circles();
    expect(found.filter((c) => !KNOWN_CIRCLES.some((k) => knownCircle(c, k))).map((c) => c.join(" ↔ "))).toEqual([]);
    expect(KNOWN_CIRCLES.filter((k) => !found.some((c) => knownCircle(c, k))).map((k) => k.reason)).toEqual([]);
  });

  test("ingest/ files import each other in no circle, and none may be listed", () => {
    // Its folders follow a task's life (docs/ARCHITECTURE.md, "A task's life"); a shared
    // type goes where both sides can import it, never into a circle.
    expect(
      circles()
        .filter((c) => c.some((f) => f.startsWith("ingest/")))
        .map((c) => c.join(" ↔ ")),
    ).toEqual([]);
    expect(
      KNOWN_CIRCLES.filter((k) => k.under?.startsWith("ingest") || k.files?.some((f) => f.startsWith("ingest/"))),
    ).toEqual([]);
  });

  test("a known exception gives its reason", () => {
    for (const k of [...KNOWN_UPWARD, ...KNOWN_CIRCLES]) expect(k.reason.length).toBeGreaterThan(20);
  });
});
