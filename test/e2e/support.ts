/**
 * Helpers for the browser tests: start ragd (the compiled binary when it exists,
 * else from source) on a free port with a temporary data dir, launch the system
 * Chromium with no network extras, record every request the page makes, and save
 * screenshots under test/.artifacts/screenshots/.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

export const ROOT = join(import.meta.dir, "..", "..");
export const CHROMIUM = "/usr/bin/chromium";
export const BINARY = join(ROOT, "dist", "ragd");
export const SHOTS = join(ROOT, "test", ".artifacts", "screenshots");

export interface Ragd {
  url: string;
  /** "binary" or "source": what is being tested. */
  kind: string;
  /** Runs a CLI command of the same ragd on the same data dir (e.g. user set-tier). */
  cli(args: string[]): { code: number | null; out: string };
  stop(): Promise<void>;
}

/**
 * Starts `ragd serve --port 0` and resolves once its "listening" log line names
 * the port. RAGD_E2E_SOURCE=1 runs src/main.ts even when the binary exists.
 */
export async function startRagd(env: Record<string, string> = {}): Promise<Ragd> {
  const dataDir = mkdtempSync(join(tmpdir(), "ragd-e2e-"));
  const kind = existsSync(BINARY) && process.env.RAGD_E2E_SOURCE !== "1" ? "binary" : "source";
  const cmd = kind === "binary" ? [BINARY] : [process.execPath, join(ROOT, "src", "main.ts")];
  const proc = Bun.spawn([...cmd, "serve", "--port", "0", "--data-dir", dataDir], {
    cwd: dataDir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dataDir, RAGD_LOG: "info", ...env },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const port = await readPort(proc.stderr);
  return {
    url: `http://127.0.0.1:${port}`,
    kind,
    cli(args) {
      const p = Bun.spawnSync([...cmd, ...args, "--data-dir", dataDir], {
        cwd: dataDir,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dataDir },
      });
      return { code: p.exitCode, out: `${p.stdout.toString()}${p.stderr.toString()}` };
    },
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Reads stderr until the JSON line {"msg":"listening","port":N}; keeps draining after. */
async function readPort(stderr: ReadableStream<Uint8Array>): Promise<number> {
  const reader = stderr.getReader();
  const decoder = new TextDecoder();
  let log = "";
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`ragd exited before listening:\n${log}`);
    log += decoder.decode(value, { stream: true });
    const m = /"msg":"listening".*?"port":(\d+)/.exec(log);
    if (m) {
      void (async () => {
        while (!(await reader.read().catch(() => ({ done: true }))).done);
      })();
      return Number(m[1]);
    }
  }
  throw new Error(`no listening line within 30 s:\n${log}`);
}

/**
 * Launches Chromium headless with background networking off. Playwright gives
 * every launch a fresh temporary profile (user-data dir) and removes it on close.
 */
export async function launchChromium(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    browser,
    close: () => browser.close(),
  };
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Records the URL of every request the page makes; `offsite()` lists those off loopback. */
export function recordRequests(page: Page) {
  const urls: string[] = [];
  page.on("request", (r) => urls.push(r.url()));
  return {
    urls,
    offsite: () =>
      urls.filter((u) => {
        const url = new URL(u);
        return !(url.protocol === "data:" || url.protocol === "blob:" || LOOPBACK.has(url.hostname));
      }),
  };
}

/**
 * Saves a full-page screenshot as <name>.png, taken from the top (a sticky header
 * would otherwise be captured mid-page) and without passing toasts.
 */
export async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.evaluate(() => scrollTo(0, 0));
  await page.screenshot({
    path: join(SHOTS, `${name}.png`),
    fullPage: true,
    animations: "disabled",
    style: ".toast-region { display: none !important; }",
  });
}

/** Screenshots in the light and the dark theme (prefers-color-scheme), then back to light. */
export async function shootThemes(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: "light" });
  await shoot(page, `${name}-light`);
  await page.emulateMedia({ colorScheme: "dark" });
  await shoot(page, `${name}-dark`);
  await page.emulateMedia({ colorScheme: "light" });
}

/**
 * Calls ragd directly with the browser's cookies (plain fetch, so the browser's
 * own request log stays what the page did).
 */
export async function api(
  ctx: BrowserContext,
  url: string,
  init: { method?: string; json?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any }> {
  const headers = new Headers(init.headers);
  const cookies = await ctx.cookies(url);
  if (cookies.length) headers.set("cookie", cookies.map((c) => `${c.name}=${c.value}`).join("; "));
  if (init.json !== undefined) headers.set("content-type", "application/json");
  const res = await fetch(url, {
    method: init.method ?? (init.json !== undefined ? "POST" : "GET"),
    headers,
    body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body };
}

/** What a sources page test starts from: ragd, Chromium, a signed-up account's context and tab, and one pipeline. */
export interface SignedIn {
  ragd: Ragd;
  chrome: Awaited<ReturnType<typeof launchChromium>>;
  ctx: BrowserContext;
  tab: Page;
  pipelineId: string;
}

/** Starts ragd with `env` and Chromium, signs up `who`, and makes the pipeline `pipeline`. */
export async function signedInWithPipeline(
  env: Record<string, string>,
  who: string,
  pipeline: string,
): Promise<SignedIn> {
  const ragd = await startRagd(env);
  const chrome = await launchChromium();
  const ctx = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "light" });
  const signup = await fetch(`${ragd.url}/api/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: `${who}-${Date.now()}@example.com`, password: "correct horse battery" }),
  });
  const [name, value] = signup.headers.get("set-cookie")!.split(";")[0]!.split("=") as [string, string];
  await ctx.addCookies([{ name, value, url: ragd.url }]);
  const pipelineId = (await api(ctx, `${ragd.url}/api/rag/pipelines`, { json: { name: pipeline } })).body.id;
  const tab = await ctx.newPage();
  tab.setDefaultTimeout(30_000);
  return { ragd, chrome, ctx, tab, pipelineId };
}
