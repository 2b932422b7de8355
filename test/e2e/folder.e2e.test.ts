/**
 * A folder source in the dashboard, in a real browser (system Chromium, headless)
 * against ragd run as a process with RAGD_FOLDER_ROOTS: the Add source form's Folder
 * kind, the folder's row with its last sync, its files as sources, and "Re-fetch now"
 * syncing again after a file was added.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { api, CHROMIUM, type launchChromium, type Ragd, shootThemes, signedInWithPipeline } from "./support";

const haveChromium = existsSync(CHROMIUM);

describe.skipIf(!haveChromium)("folder sources in the dashboard", () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "ragd-e2e-share-")));
  const folder = join(root, "handbook");
  let ragd: Ragd;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let ctx: BrowserContext;
  let tab: Page;
  let pipelineId = "";
  const row = (name: string) =>
    tab.getByRole("list", { name: "Sources" }).locator(":scope > li").filter({ hasText: name });

  beforeAll(async () => {
    mkdirSync(join(folder, "guides"), { recursive: true });
    writeFileSync(join(folder, "refunds.md"), "Refunds are paid within ten days of a return.");
    writeFileSync(join(folder, "guides", "hours.md"), "The help desk opens at nine and closes at five.");
    ({ ragd, chrome, ctx, tab, pipelineId } = await signedInWithPipeline(
      { RAGD_FOLDER_ROOTS: root },
      "folder",
      "Handbook",
    ));
  }, 120_000);

  afterAll(async () => {
    await chrome?.close();
    await ragd?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  test("a folder added from the form, its files, its last sync, and a sync again", async () => {
    await tab.goto(`${ragd.url}/#/pipelines/${pipelineId}/sources`);
    await tab.getByLabel("Folder", { exact: true }).check();
    await tab.getByLabel("Name", { exact: true }).fill("Handbook share");
    await tab.getByLabel("Folder on the server").fill(folder);
    await shootThemes(tab, "source-add-folder");
    await tab.getByRole("button", { name: "Add source" }).click();

    await row("Handbook share")
      .getByText("Last sync: 2 added, 0 changed, 0 deleted, 0 unchanged, 0 failed")
      .waitFor({ timeout: 60_000 });
    await row("guides/hours.md").getByText("guides/hours.md").first().waitFor();
    await shootThemes(tab, "sources-folder");

    writeFileSync(join(folder, "returns.md"), "Returns need the receipt.");
    await row("Handbook share").getByRole("button", { name: "Fetch Handbook share again now" }).click();
    await row("Handbook share")
      .getByText("Last sync: 1 added, 0 changed, 0 deleted, 2 unchanged, 0 failed")
      .waitFor({ timeout: 60_000 });
    const all = (await api(ctx, `${ragd.url}/api/rag/pipelines/${pipelineId}/sources`)).body as {
      externalId: string | null;
    }[];
    expect(
      all
        .map((s) => s.externalId)
        .filter(Boolean)
        .sort(),
    ).toEqual(["guides/hours.md", "refunds.md", "returns.md"]);
  }, 120_000);
});
