/**
 * A Git source in the dashboard, in a real browser (system Chromium, headless) against
 * ragd run as a process that may fetch from loopback: the Add source form's Git kind
 * (clone URL, branch, token), the source's row with its last sync, its files as sources,
 * and "Re-fetch now" syncing again after a commit. The repository is served by `git
 * http-backend` (test/support/git-server.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { type GitServer, startGitServer } from "../support/git-server";
import { api, CHROMIUM, type launchChromium, type Ragd, shootThemes, signedInWithPipeline } from "./support";

const haveChromium = existsSync(CHROMIUM);

describe.skipIf(!haveChromium)("Git sources in the dashboard", () => {
  const root = mkdtempSync(join(tmpdir(), "ragd-e2e-git-"));
  let repo: GitServer;
  let ragd: Ragd;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let ctx: BrowserContext;
  let tab: Page;
  let pipelineId = "";
  const row = (name: string) =>
    tab.getByRole("list", { name: "Sources" }).locator(":scope > li").filter({ hasText: name });
  const push = (message: string) => {
    repo.git("add", "-A");
    repo.git("commit", "-q", "-m", message);
    repo.git("push", "-q", "origin", "main");
  };

  beforeAll(async () => {
    repo = await startGitServer(root, "handbook");
    repo.write("refunds.md", "Refunds are paid within ten days of a return.");
    repo.write("guides/hours.md", "The help desk opens at nine and closes at five.");
    push("first");
    ({ ragd, chrome, ctx, tab, pipelineId } = await signedInWithPipeline(
      { RAGD_FETCH_ALLOW: "127.0.0.1" },
      "git",
      "Handbook",
    ));
  }, 120_000);

  afterAll(async () => {
    await chrome?.close();
    await ragd?.stop();
    await repo?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  test("a repository added from the form, its files, its last sync, and a sync after a commit", async () => {
    await tab.goto(`${ragd.url}/#/pipelines/${pipelineId}/sources`);
    await tab.getByLabel("Git", { exact: true }).check();
    await tab.getByLabel("Name", { exact: true }).fill("Handbook repository");
    await tab.getByLabel("Clone URL").fill(repo.url);
    await tab.getByLabel("Branch", { exact: true }).fill("main");
    await tab.getByLabel("Token or password (optional)").fill("form-secret-token");
    await shootThemes(tab, "source-add-git");
    await tab.getByRole("button", { name: "Add source" }).click();

    await row("Handbook repository")
      .getByText("Last sync: 2 added, 0 changed, 0 deleted, 0 unchanged, 0 failed")
      .waitFor({ timeout: 60_000 });
    await row("guides/hours.md").getByText("guides/hours.md").first().waitFor();
    expect(await tab.content()).not.toContain("form-secret-token");
    expect(repo.authorizations()).toContain(`Basic ${btoa("token:form-secret-token")}`);
    await shootThemes(tab, "sources-git");

    repo.write("returns.md", "Returns need the receipt.");
    push("returns");
    await row("Handbook repository").getByRole("button", { name: "Fetch Handbook repository again now" }).click();
    await row("Handbook repository")
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
