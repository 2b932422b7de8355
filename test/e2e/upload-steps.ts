/**
 * Many files at once (issue: a team's first day): a folder of twenty files chosen through
 * the "Choose a folder" input, one of them empty, which the server refuses. One progress view for
 * the set, the failure listed by its path, the other nineteen sources ready, each named
 * by its path within the folder.
 */
import { expect } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { shootThemes } from "./support";

export async function folderUploadSteps(page: Page, base: string, pipelineId: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ragd-e2e-folder-"));
  try {
    mkdirSync(join(dir, "notes"));
    for (let i = 1; i <= 19; i++)
      writeFileSync(join(dir, "notes", `note-${String(i).padStart(2, "0")}.txt`), `Harbour note ${i}: the ferry runs.`);
    writeFileSync(join(dir, "notes", "empty.txt"), "");
    await page.goto(`${base}/#/pipelines/${pipelineId}/sources`);
    await page.getByLabel("File", { exact: true }).check();
    await page.getByLabel("Choose a folder").setInputFiles(join(dir, "notes"));
    const bulk = page.getByTestId("bulk-upload");
    await bulk.getByRole("status").waitFor({ timeout: 90_000 });
    expect(await bulk.getByRole("status").textContent()).toBe("Uploaded: 19. Failed: 1.");
    expect(await bulk.textContent()).toContain("20 of 20 files");
    const failures = bulk.getByRole("list", { name: "Files that failed" }).getByRole("listitem");
    expect(await failures.count()).toBe(1);
    expect(await failures.first().textContent()).toContain("notes/empty.txt");
    expect(await failures.first().textContent()).toContain("an empty file cannot be indexed");
    await shootThemes(page, "upload-folder");
    await bulk.getByRole("button", { name: "Close" }).click();
    await page.getByLabel("Choose a folder").waitFor({ state: "attached" });
    // Every text file is a source named by its path, and each gets ready.
    const deadline = Date.now() + 90_000;
    let ready = 0;
    while (Date.now() < deadline) {
      const r = await page.request.get(`${base}/api/rag/pipelines/${pipelineId}/sources?page=1&pageSize=100`);
      const body = (await r.json()) as { data: { name: string; status: string }[] };
      ready = body.data.filter((s) => /^notes\/note-\d\d\.txt$/.test(s.name) && s.status === "ready").length;
      if (ready === 19) break;
      await page.waitForTimeout(500);
    }
    expect(ready).toBe(19);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
