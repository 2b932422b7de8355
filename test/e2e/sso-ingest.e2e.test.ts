/**
 * The dashboard in a real browser (system Chromium) with single sign-on only: the
 * sign-in screen offers just the provider's button, the browser goes through the
 * provider's own login and consent pages (the oidc-provider library on loopback) and
 * lands signed in; then the sources tab shows the ingestion strip while sources wait,
 * and hides it once they are done.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import type { BrowserContext, Page } from "playwright-core";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama";
import { startTestProvider, type TestProvider } from "../support/oidc-provider";
import { api, CHROMIUM, launchChromium, shoot, startRagd, type Ragd } from "./support";

describe.skipIf(!existsSync(CHROMIUM))("single sign-on and the ingestion strip in a real browser", () => {
  let provider: TestProvider;
  let ollama: FakeOllama;
  let ragd: Ragd;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let ctx: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    provider = await startTestProvider();
    ollama = await startFakeOllama({ models: { "all-minilm": 384 } });
    ragd = await startRagd({
      RAGD_OIDC_ISSUER: provider.issuer,
      RAGD_OIDC_CLIENT_ID: provider.clientId,
      RAGD_OIDC_CLIENT_SECRET: provider.clientSecret,
      RAGD_OIDC_NAME: "Example Corp",
      RAGD_PASSWORD_LOGIN: "off",
      RAGD_OLLAMA_URL: ollama.url,
      RAGD_DEFAULT_TIER: "pro",
      RAGD_WORKERS: "1",
    });
    provider.register([`${ragd.url}/api/auth/oidc/callback`]);
    chrome = await launchChromium();
    ctx = await chrome.browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await ctx.newPage();
    page.setDefaultTimeout(15_000);
  }, 180_000);

  afterAll(async () => {
    await chrome?.close();
    await ragd?.stop();
    await ollama?.stop();
    await provider?.close();
  });

  test("the sign-in screen offers only the provider, and its pages sign the person in", async () => {
    await page.goto(`${ragd.url}/`);
    const button = page.getByRole("link", { name: "Sign in with Example Corp" });
    await button.waitFor();
    expect(await page.locator('input[type="password"]').count()).toBe(0);
    expect(await page.getByRole("link", { name: "Create account" }).count()).toBe(0);
    await shoot(page, "sso-signin");
    await button.click();
    // The provider's own login form, then its consent form.
    await page.locator('input[name="login"]').fill("frank");
    await page.locator('input[name="password"]').fill("anything");
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').click();
    // The callback's own address matches ragd's too: wait for the signed-in shell itself.
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    const me = await api(ctx, `${ragd.url}/api/auth/me`);
    expect(me.body.user.email).toBe("frank@example.test");
    expect(me.body.user.tier).toBe("pro");
  }, 60_000);

  test("the sources tab shows the queue while sources wait, and hides it when they are done", async () => {
    const p = await api(ctx, `${ragd.url}/api/rag/pipelines`, {
      json: { name: "Slow model", embeddingModel: "ollama/all-minilm" },
    });
    expect(p.status).toBe(201);
    // The model is unreachable: the sources wait and are retried, so the strip has time to show.
    await ollama.down();
    for (let i = 0; i < 4; i++) {
      const s = await api(ctx, `${ragd.url}/api/rag/pipelines/${p.body.id}/sources`, {
        json: { type: "text", name: `note ${i}`, content: `Note ${i} about the quarterly plan.` },
      });
      expect(s.status).toBe(201);
    }
    await page.goto(`${ragd.url}/#/pipelines/${p.body.id}/sources`);
    const strip = page.locator(".ingest-strip");
    // The sources stay queued for about 40 s of retries: the strip must show well within that.
    await strip.waitFor({ timeout: 30_000 }).catch(async (e) => {
      const list = await api(ctx, `${ragd.url}/api/rag/pipelines/${p.body.id}/sources`);
      const text =
        (await page
          .locator("main")
          .textContent()
          .catch(() => "")) ?? "";
      throw new Error(`${e} at ${page.url()}; counts ${JSON.stringify(list.body.counts)}; page: ${text.slice(0, 400)}`);
    });
    expect(await strip.textContent()).toMatch(/Ingesting\s*\d+ processing · \d+ queued/);
    expect(await strip.getByRole("progressbar").count()).toBe(1);
    await shoot(page, "sources-ingesting");
    ollama.up();
    await strip.waitFor({ state: "detached", timeout: 60_000 });
    expect(await page.getByText("Ready").count()).toBeGreaterThanOrEqual(4);
  }, 120_000);

  test("with sign-up closed, the sign-in screen does not offer to create an account", async () => {
    const shut = await startRagd({ RAGD_SIGNUP: "closed" });
    try {
      const fresh = await chrome.browser.newPage();
      await fresh.goto(`${shut.url}/#/signup`);
      await fresh.locator('input[type="password"]').waitFor();
      // The methods answer arrives after the first paint: wait for the link to go.
      await fresh.getByRole("link", { name: "Create account" }).waitFor({ state: "detached" });
      expect(await fresh.getByRole("button", { name: "Sign in" }).count()).toBe(1);
      await fresh.close();
    } finally {
      await shut.stop();
    }
  }, 60_000);
});
