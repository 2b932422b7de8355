/**
 * The dashboard's walk of a dropped folder (src/dashboard/lib/picked-files.ts), run in
 * Chromium on real directory entries (the browser's sandboxed file system, the same
 * FileSystemEntry API a drop hands over): a pick past MAX_PICKED is counted whole, not
 * read; deep nesting keeps its path; an entry the browser cannot read fails the pick by name.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { launchChromium } from "./e2e/support";

const MODULE = join(import.meta.dir, "..", "src", "dashboard", "lib", "picked-files.ts");

let page: Page;
let close: () => Promise<void>;
let server: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  const built = await Bun.build({ entrypoints: [MODULE], format: "esm", target: "browser" });
  const code = (await built.outputs[0]!.text()).replace(/export\s*{([^}]*)};?\s*$/, "window.picked = {$1};");
  const html = `<!doctype html><meta charset="utf-8"><script>${code}</script>`;
  // An http origin: the sandboxed file system is refused to opaque origins.
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(html, { headers: { "content-type": "text/html" } }),
  });
  const chromium = await launchChromium();
  close = chromium.close;
  page = await chromium.browser.newPage();
  await page.goto(`http://127.0.0.1:${server.port}/`);
}, 60_000);

afterAll(async () => {
  await close?.();
  server?.stop(true);
});

/** In the page: makes the tree `files` (paths) in a fresh sandboxed folder, drops that folder, answers the pick. */
function dropTree(files: string[], removeBeforeDrop?: string) {
  return page.evaluate(
    async ({ files, removeBeforeDrop }) => {
      // The sandboxed file system's callback API, as far as this uses it.
      type Call = (...args: any[]) => void;
      type Entry = { getDirectory: Call; getFile: Call; remove: Call; name: string };
      const w = window as unknown as { webkitRequestFileSystem: Call; picked: any };
      const fs = await new Promise<{ root: Entry }>((ok, fail) => w.webkitRequestFileSystem(0, 1 << 24, ok, fail));
      const dir = (parent: Entry, name: string) =>
        new Promise<Entry>((ok, fail) => parent.getDirectory(name, { create: true }, ok, fail));
      const top = await dir(fs.root, `drop-${Math.random().toString(36).slice(2)}`);
      const folders = new Map<string, Promise<Entry>>([["", Promise.resolve(top)]]);
      const folder = (path: string): Promise<Entry> => {
        if (!folders.has(path)) {
          const cut = path.lastIndexOf("/");
          folders.set(
            path,
            folder(path.slice(0, Math.max(cut, 0))).then((p) => dir(p, path.slice(cut + 1))),
          );
        }
        return folders.get(path)!;
      };
      const made = await Promise.all(
        files.map(async (path) => {
          const cut = path.lastIndexOf("/");
          const parent = await folder(cut < 0 ? "" : path.slice(0, cut));
          const f = await new Promise<Entry>((ok, fail) =>
            parent.getFile(path.slice(cut + 1), { create: true }, ok, fail),
          );
          return [path, f] as const;
        }),
      );
      // What a drop of the folder hands the page: one item whose entry is the folder; or, for
      // `removeBeforeDrop`, the entry of that file, removed since (as a file deleted after a drop).
      let dropped: unknown = top;
      if (removeBeforeDrop) {
        dropped = made.find(([p]) => p === removeBeforeDrop)![1];
        await new Promise((ok, fail) => (dropped as Entry).remove(ok, fail));
      }
      const drop = { items: [{ webkitGetAsEntry: () => dropped }], files: [] };
      try {
        const { files: picked, count } = await w.picked.pickedFromDrop(drop);
        return { count, read: picked.length, paths: picked.map((p: { path: string }) => p.path).sort() as string[] };
      } catch (err) {
        return { error: (err as Error).message };
      }
    },
    { files, removeBeforeDrop },
  );
}

test("a dropped folder of 6,000 files is counted whole and read only up to MAX_PICKED", async () => {
  const files = Array.from({ length: 6000 }, (_, i) => `notes/n${i}.txt`);
  const r = await dropTree(files);
  expect(r).toMatchObject({ count: 6000, read: 5000 });
}, 60_000);

test("deep nesting keeps the whole path; hidden entries are left out", async () => {
  const deep = `${Array.from({ length: 40 }, (_, i) => `d${i}`).join("/")}/bottom.txt`;
  const r = await dropTree([deep, "a.txt", ".hidden/x.txt", "b/.env"]);
  expect(r).toMatchObject({ count: 2, read: 2 });
  expect((r as { paths: string[] }).paths.map((p) => p.replace(/^drop-[a-z0-9]+\//, ""))).toEqual(["a.txt", deep]);
}, 60_000);

test("a file gone before it is read fails the pick, naming it", async () => {
  const r = await dropTree(["a.txt", "gone.txt"], "gone.txt");
  expect((r as { error: string }).error).toMatch(/^gone\.txt: ./);
}, 60_000);
