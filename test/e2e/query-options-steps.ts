/**
 * The playground's query options in the browser (docs/API.md, Query options): after
 * sourceSteps has indexed "Refunds" with `{team: "support", year: 2026}`, every option
 * is set from its control, sent in one request, and the answer shows highlights,
 * context and facets.
 */
import { expect } from "bun:test";
import type { Page, Request } from "playwright-core";

export async function queryOptionSteps(page: Page, base: string, pipelineId: string): Promise<void> {
  await page.goto(`${base}/#/pipelines/${pipelineId}/playground`);
  await page.getByLabel("Query", { exact: true }).fill("refund form");
  await page.getByLabel("Keyword").check();
  const options = page.getByTestId("query-options");
  await options.getByLabel("Mark the query's words in each result").check();
  await options.getByLabel(/Context around each hit/).fill("12");
  await options.getByLabel("One group per source").check();
  await options.getByLabel("Chunks per source").fill("2");
  await options.getByLabel("Count the values of metadata keys").fill("team, year");
  await options.getByLabel("Prefer sources whose metadata match").fill("team=support");
  await options.getByLabel(/half-life in days/).fill("30");
  const sent = page.waitForRequest((r: Request) => r.method() === "POST" && r.url().endsWith("/query"));
  await page.getByRole("button", { name: "Search" }).click();
  expect(JSON.parse((await sent).postData() ?? "{}")).toMatchObject({
    query: "refund form",
    highlights: true,
    expand: { chars: 12 },
    groupBy: "source",
    perSource: 2,
    facets: ["team", "year"],
    boost: { match: { team: "support" }, recency: { halfLifeDays: 30 } },
  });
  const result = page.locator(".result").first();
  await result
    .locator("mark", { hasText: /^refund$/i })
    .first()
    .waitFor();
  expect(await result.locator("mark").allTextContents()).toEqual(expect.arrayContaining(["refund", "form"]));
  const facets = page.getByTestId("facets");
  await facets.getByText("support (1)").waitFor();
  await facets.getByText("2026 (1)").waitFor();
  expect(await page.getByLabel("curl command").textContent()).toContain('"boost"');
}
