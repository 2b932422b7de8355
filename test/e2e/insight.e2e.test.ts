/**
 * The query log and the Insight tab in a real browser against ragd run as a process
 * (insight-steps.ts has the steps).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import type { BrowserContext, Page } from "playwright-core";
import { insightSteps } from "./insight-steps";
import { api, CHROMIUM, launchChromium, startRagd, type Ragd } from "./support";

const PASSWORD = "correct horse battery";

describe.skipIf(!existsSync(CHROMIUM))("the Insight tab in a real browser", () => {
  let ragd: Ragd;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let ctx: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ragd = await startRagd();
    chrome = await launchChromium();
    ctx = await chrome.browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await ctx.newPage();
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (e) => pageErrors.push(e.message));
  }, 120_000);

  afterAll(async () => {
    await chrome?.close();
    await ragd?.stop();
  });

  test("the log turned on in Settings; searches, ingestion and evaluations drawn", async () => {
    await page.goto(`${ragd.url}/#/signup`);
    await page.getByLabel("Email").fill(`insight-${Date.now()}@example.com`);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Pipelines" }).waitFor();
    const pipeline = await api(ctx, `${ragd.url}/api/rag/pipelines`, {
      json: { name: "Insight", embeddingModel: "builtin" },
    });
    const path = `${ragd.url}/api/rag/pipelines/${pipeline.body.id}`;
    const content = "The library opening hours are nine to five on weekdays and ten to two on Saturdays.";
    const source = await api(ctx, `${path}/sources`, { json: { type: "text", name: "Hours", content } });
    const t0 = Date.now();
    const status = async () => (await api(ctx, `${path}/sources/${source.body.id}`)).body.status;
    while ((await status()) !== "ready" && Date.now() - t0 < 30_000) await Bun.sleep(200);
    expect(await status()).toBe("ready");
    await insightSteps(page, ragd.url, pipeline.body.id, source.body.id);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
