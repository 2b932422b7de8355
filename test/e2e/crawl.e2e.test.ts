/**
 * The dashboard's refresh and crawl settings in a real browser (system Chromium,
 * headless) against ragd run as a process: a web page source added with a schedule
 * and "follow links" crawls a site on loopback, its row shows what the crawl found
 * and when it was checked, its pages say whose they are, "Re-fetch now" checks again,
 * and "Schedule" changes how often.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { waitFor } from "../support/wait";
import { existsSync } from "node:fs";
import type { BrowserContext, Page } from "playwright-core";
import { api, CHROMIUM, type launchChromium, type Ragd, shootThemes, signedInWithPipeline } from "./support";

const haveChromium = existsSync(CHROMIUM);

const page = (title: string, links: string[]) =>
  `<html><head><title>${title}</title></head><body><main><p>${title} tells of refunds, opening hours and support.</p>${links
    .map((l) => `<a href="${l}">more</a>`)
    .join(" ")}</main></body></html>`;
const PAGES: Record<string, string> = {
  "/": page("Help home", ["/refunds", "/hours"]),
  "/refunds": page("Refunds", []),
  "/hours": page("Opening hours", []),
};

describe.skipIf(!haveChromium)("refresh and crawl in the dashboard", () => {
  const site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      const body = PAGES[new URL(req.url).pathname];
      return body
        ? new Response(body, { headers: { "content-type": "text/html" } })
        : new Response("", { status: 404 });
    },
  });
  let ragd: Ragd;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let ctx: BrowserContext;
  let tab: Page;
  let pipelineId = "";
  const row = (name: string) =>
    tab.getByRole("list", { name: "Sources" }).locator(":scope > li").filter({ hasText: name });

  beforeAll(async () => {
    ({ ragd, chrome, ctx, tab, pipelineId } = await signedInWithPipeline(
      { RAGD_FETCH_ALLOW: "127.0.0.1", RAGD_CRAWL_DELAY_MS: "0" },
      "crawl",
      "Help",
    ));
  }, 120_000);

  afterAll(async () => {
    await chrome?.close();
    await ragd?.stop();
    site.stop(true);
  });

  test("a crawl with a schedule, its report, its pages and a re-fetch", async () => {
    await tab.goto(`${ragd.url}/#/pipelines/${pipelineId}/sources`);
    await tab.getByLabel("Web page").check();
    await tab.getByLabel("Name", { exact: true }).fill("Help site");
    await tab.getByLabel("Page address").fill(`http://127.0.0.1:${site.port}/`);
    await tab.getByText("Refresh and crawl (optional)").click();
    await tab.getByLabel("Fetch again").selectOption("1d");
    await tab.getByLabel(/Follow links/).check();
    await tab.getByLabel("Depth").fill("1");
    await shootThemes(tab, "source-add-crawl");
    await tab.getByRole("button", { name: "Add source" }).click();

    await row("Help site").getByText("Crawl: 3 pages").waitFor({ timeout: 60_000 });
    await row("Help site").getByText("fetched again every day").waitFor();
    await row("Refunds").getByText("A page of a crawl").waitFor();
    // A page is fetched again with its crawl source: it has no button of its own.
    expect(
      await row("Refunds")
        .getByRole("button", { name: /Fetch .* again now/ })
        .count(),
    ).toBe(0);
    await shootThemes(tab, "sources-crawl");

    const sourcesUrl = `${ragd.url}/api/rag/pipelines/${pipelineId}/sources`;
    const crawlOf = async () =>
      ((await api(ctx, sourcesUrl)).body as { name: string; crawlReport: { finishedAt: string } }[]).find(
        (s) => s.name === "Help site",
      )!;
    const before = (await crawlOf()).crawlReport.finishedAt;
    // Every page indexed first: a page still waiting for its first indexing has no content
    // hash yet, and the re-fetch would count it as changed.
    await waitFor(
      "the crawl's pages ready",
      async () => {
        const all = (await api(ctx, sourcesUrl)).body as { status: string }[];
        return all.length >= 3 && all.every((s) => s.status === "ready");
      },
      60_000,
      200,
    );
    await row("Help site").getByRole("button", { name: "Fetch Help site again now" }).click();
    for (let i = 0; i < 200 && (await crawlOf()).crawlReport.finishedAt === before; i++) await Bun.sleep(100);
    expect((await crawlOf()).crawlReport.finishedAt > before).toBe(true);
    // When the line does not come, say what the API held: a count, or a list that did not reload.
    await row("Help site")
      .getByText("0 added, 0 changed, 0 removed")
      .waitFor()
      .catch(async (err) => {
        const report = JSON.stringify((await crawlOf()).crawlReport);
        const shown = await row("Help site").textContent();
        throw new Error(`${err}\nthe API's crawl report: ${report}\nthe row: ${shown}`);
      });

    // The schedule is changed in place (PATCH), nothing fetched or embedded for it.
    await row("Help site").getByRole("button", { name: "Schedule of Help site" }).click();
    await tab.getByLabel("Fetch Help site again", { exact: true }).selectOption("7d");
    await shootThemes(tab, "source-schedule");
    await tab.getByRole("button", { name: "Save schedule" }).click();
    await row("Help site").getByText("fetched again every week").waitFor();
    const saved = ((await api(ctx, sourcesUrl)).body as { name: string; refreshEvery: number }[]).find(
      (s) => s.name === "Help site",
    )!;
    expect(saved.refreshEvery).toBe(604_800);
  }, 120_000);
});
