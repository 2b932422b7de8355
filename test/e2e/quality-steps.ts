/** Browser steps for the Quality tab: a typed evaluation set, its run, and a re-index gated on it. */
import { expect } from "bun:test";
import type { Page } from "playwright-core";
import { api, shootThemes } from "./support";

/** Needs the "Refunds" text source of sourceSteps, ready. */
export async function qualitySteps(page: Page, base: string, pipelineId: string): Promise<void> {
  await page.goto(`${base}/#/pipelines/${pipelineId}/quality`);
  await page.getByText("No sets yet").waitFor();
  await page.getByLabel("Set name").fill("Handbook checks");
  await page.getByLabel("Query 1", { exact: true }).fill("how long do refunds take");
  await page.getByLabel("Sources that answer query 1").selectOption({ label: "Refunds" });
  await page.getByRole("button", { name: "Save set" }).click();
  await page.getByRole("button", { name: "Run Handbook checks" }).click();
  const overall = page
    .locator("table")
    .filter({ has: page.getByRole("columnheader", { name: "nDCG@10" }) })
    .first();
  await overall.getByRole("rowheader", { name: "hybrid" }).waitFor();

  // What the table shows is what the API computed.
  const ctx = page.context();
  const sets = (await api(ctx, `${base}/api/rag/pipelines/${pipelineId}/evals`)).body;
  expect(sets.map((s: { name: string }) => s.name)).toEqual(["Handbook checks"]);
  const run = sets[0].lastRun.result;
  expect(run.modes.sort()).toEqual(["hybrid", "keyword", "vector"]);
  const hybridRow = overall.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "hybrid" }) });
  expect(await hybridRow.getByRole("cell").last().textContent()).toBe(run.overall.hybrid.ndcgAt10.toFixed(3));
  await page.getByRole("table", { name: "Per-query figures" }).getByText("how long do refunds take").waitFor();
  await shootThemes(page, "quality");

  // A re-index that switches only if not worse on the set; nothing changed, so it switches.
  await page.goto(`${base}/#/pipelines/${pipelineId}/settings`);
  await page.getByLabel("Switch to the new index").selectOption({ label: "only if not worse on “Handbook checks”" });
  await page.getByRole("button", { name: "Re-index now" }).click();
  await page.getByText(/switches in only if the set does not score worse/).waitFor();
  const decided = async () => {
    const runs = (await api(ctx, `${base}/api/rag/pipelines/${pipelineId}/evals/${sets[0].id}/runs`)).body;
    return runs.find((r: { kind: string }) => r.kind === "reindex");
  };
  const t0 = Date.now();
  while (!(await decided()) && Date.now() - t0 < 90_000) await Bun.sleep(500);
  expect((await decided())?.result.decision).toBe("switched");
  await page.goto(`${base}/#/pipelines/${pipelineId}/quality`);
  await page.getByText("switched to the new index").waitFor();
}
