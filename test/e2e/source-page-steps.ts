/**
 * A source opened (issue: what was indexed): from the sources list to the source's page with
 * its extracted text, chunks with offsets and history; and from a playground result's chunk
 * number to that chunk on its source's page.
 */
import { expect } from "bun:test";
import type { Page } from "playwright-core";
import { shootThemes } from "./support";

export async function sourcePageSteps(page: Page, base: string, pipelineId: string): Promise<void> {
  await page.goto(`${base}/#/pipelines/${pipelineId}/sources`);
  await page.getByLabel("Search sources by name").fill("note-01");
  await page.getByRole("link", { name: "notes/note-01.txt" }).click();
  await page.getByRole("heading", { name: /notes\/note-01\.txt/ }).waitFor();
  const text = page.getByTestId("source-text");
  await text.waitFor();
  expect(await text.textContent()).toBe("Harbour note 1: the ferry runs.");
  const chunks = page.getByRole("list", { name: "Chunks" }).getByRole("listitem");
  expect(await chunks.count()).toBe(1);
  expect(await chunks.first().textContent()).toContain("Chunk 0 · characters 0–31");
  expect(await page.locator('li[aria-current="true"]').count()).toBe(0);
  const history = page.getByRole("list", { name: "History" });
  await history.getByText("source.ready").waitFor();
  await shootThemes(page, "source-page");

  await page.goto(`${base}/#/pipelines/${pipelineId}/playground`);
  await page.getByLabel("Query", { exact: true }).fill("harbour note ferry");
  await page.getByRole("button", { name: "Search" }).click();
  const first = page.locator(".result").first();
  await first.waitFor();
  const name = (await first.locator(".result-source").textContent()) ?? "";
  await first.getByRole("link", { name: /chunk \d+/ }).click();
  await page.getByRole("heading", { name: new RegExp(name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")) }).waitFor();
  await page.locator('li[aria-current="true"]').waitFor();
}
