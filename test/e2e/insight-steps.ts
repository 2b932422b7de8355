/**
 * Browser steps for the query log and the Insight tab: the log is turned on in Settings,
 * searches and an evaluation run are made, and the Insight tab draws them (searches per
 * hour, latency, frequent queries, queries with nothing relevant, chunks per minute,
 * evaluation scores), in the light and dark themes and at a phone's 390 px.
 */
import { expect } from "bun:test";
import type { Page } from "playwright-core";
import { api, shootThemes } from "./support";

const ASKED = "opening hours";
const NOTHING = "zzqx vorpal";

/** Needs a signed-in page and a pipeline with one ready source, `sourceId`. */
export async function insightSteps(page: Page, base: string, pipelineId: string, sourceId: string): Promise<void> {
  const ctx = page.context();
  const path = `${base}/api/rag/pipelines/${pipelineId}`;

  // Off by default: the tab says so and draws no searches.
  await page.goto(`${base}/#/pipelines/${pipelineId}/insight`);
  await page.getByText("The query log is off for this pipeline").waitFor();
  expect(await page.getByRole("img", { name: /^Searches per hour/ }).count()).toBe(0);

  // Turned on in Settings.
  await page.goto(`${base}/#/pipelines/${pipelineId}/settings`);
  await page.getByLabel("Record this pipeline’s searches").check();
  await page.getByLabel("Keep for (days)").fill("7");
  await page.getByRole("button", { name: "Save query log setting" }).click();
  await page.getByText("Query log setting saved.").waitFor();
  expect((await api(ctx, path)).body.queryLog).toEqual({ enabled: true, retentionDays: 7, allowed: true });

  // Searches as the owner, and an evaluation run.
  for (const query of [ASKED, ASKED, ASKED, NOTHING])
    expect((await api(ctx, `${path}/query`, { json: { query } })).status).toBe(200);
  const set = await api(ctx, `${path}/evals`, {
    json: { name: "Hours", queries: [{ query: ASKED, expectedSourceIds: [sourceId] }] },
  });
  expect((await api(ctx, `${path}/evals/${set.body.id}/run`, { json: {} })).status).toBe(200);
  // The log is written every 2 s: wait until the API counts all four.
  const t0 = Date.now();
  while ((await api(ctx, `${path}/insight`)).body.queries.total < 4 && Date.now() - t0 < 20_000) await Bun.sleep(200);

  await page.goto(`${base}/#/pipelines/${pipelineId}/insight`);
  for (const name of [/^Searches per hour/, /^Latency per hour/, /^Chunks indexed per minute/, /^Evaluation scores/])
    await page.getByRole("img", { name }).waitFor();
  const frequent = page.getByRole("table", { name: "Most frequent queries" });
  await frequent.getByRole("row").filter({ hasText: ASKED }).filter({ hasText: "3" }).waitFor();
  await page.getByRole("table", { name: "Queries with no relevant result" }).getByText(NOTHING).waitFor();
  await page.getByText("4 searches logged in this window.").waitFor();
  expect(await page.locator(".chart-bar").count()).toBeGreaterThan(0);

  // Dark mode: the bars take the dark theme's accent.
  const barFill = () =>
    page
      .locator(".chart-bar")
      .first()
      .evaluate((el) => getComputedStyle(el).fill);
  await page.emulateMedia({ colorScheme: "light" });
  const light = await barFill();
  await page.emulateMedia({ colorScheme: "dark" });
  const dark = await barFill();
  expect(dark).not.toBe(light);
  await shootThemes(page, "insight");

  // A phone: nothing wider than the screen.
  const size = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("img", { name: /^Searches per hour/ }).waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await shootThemes(page, "insight-phone");
  if (size) await page.setViewportSize(size);
}
