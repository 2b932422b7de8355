/**
 * The dashboard's files as ragd serves them (no browser): built fresh, served
 * through the app with the right types and security headers, within the 300 KB
 * gzip budget, hidden from the OpenAPI document, and referencing no outside host.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildDashboard } from "../scripts/build-dashboard";
import type { TestApp } from "./support/app";

const BUDGET_GZIP = 300 * 1024;
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'";
const ALLOWED_HOSTS = new Set(["localhost", "127.0.0.1", "example.com", "www.w3.org"]);

/** Every http(s) host named anywhere in `text`. */
const hostsIn = (text: string): string[] =>
  [...text.matchAll(/https?:\/\/([a-z0-9.-]+\.[a-z]{2,}|localhost|\d+\.\d+\.\d+\.\d+)/gi)].map((m) =>
    m[1]!.toLowerCase(),
  );

/** Hosts that markup or styles would load from: src=, href=, url(…), fetch("…"), import "…". */
const loadedHostsIn = (text: string): string[] =>
  [
    ...text.matchAll(
      /(?:\b(?:src|href|action|srcset)\s*=\s*["']?|url\(\s*["']?|fetch\(\s*["'`]|import\s*\(?\s*["'`]|@import\s+["'])\s*https?:\/\/([^/"'`)\s:]+)/gi,
    ),
  ].map((m) => m[1]!.toLowerCase());

const outside = (hosts: string[]) => [...new Set(hosts)].filter((h) => !ALLOWED_HOSTS.has(h));

let app: TestApp;
let sizes: { raw: number; gzip: number };
const get = (path: string) => app.call("GET", path);

beforeAll(async () => {
  sizes = await buildDashboard();
  // Imported after the build: src/app.ts embeds the freshly built files.
  const { makeApp } = await import("./support/app");
  app = await makeApp();
}, 120_000);

afterAll(async () => {
  await app?.close();
});

describe("dashboard assets", () => {
  test("GET / is the page, with a strict CSP, nosniff, and no framing", async () => {
    const r = await get("/");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(r.headers.get("content-security-policy")).toBe(CSP);
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    expect(r.headers.get("x-frame-options")).toBe("DENY");
    expect(r.text).toMatch(/<script type="module" src="\/assets\/app\.js\?v=[a-z0-9]+"><\/script>/);
    expect(r.text).toMatch(/<link rel="stylesheet" href="\/assets\/app\.css\?v=[a-z0-9]+">/);
    expect(r.text).toContain('href="/docs"');
  });

  test("app.js and app.css are the built files, with their types", async () => {
    const dist = join(import.meta.dir, "..", "src", "dashboard", "dist");
    for (const [path, type, file] of [
      ["/assets/app.js", "text/javascript; charset=utf-8", "app.js"],
      ["/assets/app.css", "text/css; charset=utf-8", "app.css"],
    ] as const) {
      const r = await get(path);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toBe(type);
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      expect(r.text).toBe(readFileSync(join(dist, file), "utf8"));
    }
  });

  test("the JavaScript stays under 300 KB gzip", async () => {
    const js = new TextEncoder().encode((await get("/assets/app.js")).text);
    const gzip = Bun.gzipSync(js).byteLength;
    console.log(`dashboard app.js: ${(js.byteLength / 1024).toFixed(1)} KB raw, ${(gzip / 1024).toFixed(1)} KB gzip`);
    expect(gzip).toBe(sizes.gzip);
    expect(gzip).toBeLessThan(BUDGET_GZIP);
  });

  test("the page, script and styles name no outside host at all", async () => {
    for (const path of ["/", "/assets/app.js", "/assets/app.css"]) {
      expect({ path, hosts: outside(hostsIn((await get(path)).text)) }).toEqual({ path, hosts: [] });
    }
  });

  test("the API docs page and its assets load nothing from outside", async () => {
    const page = await get("/docs");
    expect(page.status).toBe(200);
    expect(outside(loadedHostsIn(page.text))).toEqual([]);
    const assets = [...page.text.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const path of assets) {
      const r = await get(path);
      expect(r.status).toBe(200);
      expect({ path, hosts: outside(loadedHostsIn(r.text)) }).toEqual({ path, hosts: [] });
    }
  });

  test("the dashboard routes are not in the OpenAPI document", async () => {
    const doc = (await get("/docs/openapi.json")).body as { paths: Record<string, unknown> };
    for (const path of ["/", "/assets/app.js", "/assets/app.css"]) expect(doc.paths[path]).toBeUndefined();
  });

  test("an unknown asset is a JSON 404, not the page", async () => {
    const r = await get("/assets/nope.js");
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("not_found");
  });
});
