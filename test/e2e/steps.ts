/** Browser steps for data sources and knowledge bases, driven as a user would. */
import { expect } from "bun:test";
import type { BrowserContext, Page, Request } from "playwright-core";
import { api, shootThemes, type Ragd } from "./support";

/** A source row in the list, by its name. */
const sourceRow = (page: Page, name: string) =>
  page.getByRole("list", { name: "Sources" }).locator(":scope > li").filter({ hasText: name });

/** Adds text, a refused URL, an unreadable file and a file to the pipeline, then queries for the text. */
export async function sourceSteps(page: Page, base: string, pipelineId: string): Promise<void> {
  // The list is read a page at a time, never whole, even while sources are processing.
  const listReads: string[] = [];
  const onRequest = (r: Request) => {
    if (r.method() === "GET" && new URL(r.url()).pathname.endsWith("/sources")) listReads.push(r.url());
  };
  page.on("request", onRequest);
  await page.goto(`${base}/#/pipelines/${pipelineId}/sources`);
  await page.getByText("No sources yet").waitFor();

  await page.getByLabel("Name", { exact: true }).fill("Refunds");
  await page
    .getByLabel("Text to index")
    .fill("Refunds are paid within 14 days to the original card. Ask support for the refund form.");
  await page.getByRole("button", { name: "Add source" }).click();
  await sourceRow(page, "Refunds").getByText("Ready").waitFor({ timeout: 90_000 });

  // Label it: the metadata editor saves with PATCH and the row shows the labels.
  await sourceRow(page, "Refunds").getByRole("button", { name: "Metadata" }).click();
  await page.getByLabel("Key 1").fill("team");
  await page.getByLabel("Value 1").fill("support");
  await page.getByRole("button", { name: "Add a row" }).click();
  await page.getByLabel("Key 2").fill("year");
  await page.getByLabel("Type 2").selectOption("number");
  await page.getByLabel("Value 2").fill("2026");
  await page.getByRole("button", { name: "Save metadata" }).click();
  await sourceRow(page, "Refunds").getByText("team: support").waitFor();
  await sourceRow(page, "Refunds").getByText("year: 2026").waitFor();

  // A loopback address is refused by the fetch rules at once, and the form says why.
  await page.getByLabel("Web page").check();
  await page.getByLabel("Name", { exact: true }).fill("Local page");
  await page.getByLabel("Page address").fill("http://127.0.0.1:9/nothing");
  await page.getByRole("button", { name: "Add source" }).click();
  await page
    .getByText(/refused by the fetch rules/)
    .first()
    .waitFor();
  expect(await sourceRow(page, "Local page").count()).toBe(0);

  // A file that cannot be read: the source fails, says why, and can be retried.
  await page.getByLabel("File", { exact: true }).check();
  await page.locator('input[data-pick="files"]').setInputFiles({
    name: "broken.pdf",
    mimeType: "application/pdf",
    buffer: Buffer.from("%PDF-1.7\nthis is not a PDF body\n"),
  });
  const failed = sourceRow(page, "broken.pdf");
  await failed.getByText("Why it failed").waitFor({ timeout: 90_000 });
  await failed.getByRole("button", { name: "Retry" }).waitFor();
  await shootThemes(page, "sources-failed");
  await failed.getByRole("button", { name: "Retry" }).click();
  await failed
    .getByText(/Queued|Processing|Failed/)
    .first()
    .waitFor();

  await page.getByLabel("File", { exact: true }).check();
  await page.locator('input[data-pick="files"]').setInputFiles({
    name: "faq.md",
    mimeType: "text/markdown",
    buffer: Buffer.from("# FAQ\n\nOpening hours are nine to five on weekdays.\n"),
  });
  await sourceRow(page, "faq.md").getByText("Ready").waitFor({ timeout: 90_000 });
  await shootThemes(page, "sources");
  await sourceListSteps(page, base, pipelineId);
  page.off("request", onRequest);
  expect(listReads.length).toBeGreaterThan(3);
  expect(listReads.filter((u) => !/[?&]page=\d+&pageSize=20\b/.test(u))).toEqual([]);

  await page.goto(`${base}/#/pipelines/${pipelineId}/playground`);
  await page.getByLabel("Query", { exact: true }).fill("refund original card");
  await page.getByLabel("Hybrid").check();
  await page.getByRole("button", { name: "Search" }).click();
  const first = page.locator(".result").first();
  await first.waitFor();
  expect(await first.textContent()).toContain("Refunds");
  expect(await first.textContent()).toMatch(/chunk \d+/);
  // The pipeline analyses text by language: the answer says what the query was analysed as.
  await page.getByText(/analysed as \p{L}+/u).waitFor();
  await shootThemes(page, "playground-results");

  // The filter builder: only the labelled source matches team = support and year ≥ 2026.
  await page.getByRole("button", { name: "Filter on metadata" }).click();
  await page.getByLabel("Key 1").fill("team");
  await page.getByLabel("Value 1").fill("support");
  await page.getByRole("button", { name: "Add a row" }).click();
  await page.getByLabel("Key 2").fill("year");
  await page.getByLabel("Operator").nth(1).selectOption("$gte");
  await page.getByLabel("Type 2").selectOption("number");
  await page.getByLabel("Value 2").fill("2026");
  await page.getByLabel("Query", { exact: true }).fill("opening hours refund");
  // The first query's results stay on screen until this one answers: wait for the answer.
  const answered = page.waitForResponse((r) => r.url().endsWith(`/api/rag/pipelines/${pipelineId}/query`));
  await page.getByRole("button", { name: "Search" }).click();
  await answered;
  await page.getByRole("button", { name: "Search", exact: true }).waitFor();
  await page.locator(".result").first().waitFor();
  const names = await page.locator(".result-source").allTextContents();
  expect(names.length).toBeGreaterThan(0);
  expect(new Set(names)).toEqual(new Set(["Refunds"]));
}

/** With 23 sources the list pages by 20; the search box narrows it and the status filter picks the failed one. */
async function sourceListSteps(page: Page, base: string, pipelineId: string): Promise<void> {
  for (let i = 1; i <= 20; i++) {
    const n = String(i).padStart(2, "0");
    const r = await api(page.context(), `${base}/api/rag/pipelines/${pipelineId}/sources`, {
      json: { type: "text", name: `Note ${n}`, content: `Parking rota for week ${n}: bay ${i} is free.` },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  }
  await page.reload();
  const rows = page.getByRole("list", { name: "Sources" }).locator(":scope > li");
  await page.getByText("Page 1 of 2 · 23 in all").waitFor();
  expect(await rows.count()).toBe(20);
  expect(await rows.first().textContent()).toContain("Note 20");
  await page.getByRole("link", { name: "Next →" }).click();
  await page.getByText("Page 2 of 2").waitFor();
  // Newest first: the three sources added before the notes are on the second page.
  await sourceRow(page, "Refunds").waitFor();
  expect(await rows.count()).toBe(3);

  await page.getByLabel("Search sources by name").fill("NOTE 1");
  await page.waitForURL(/q=NOTE(\+|%20)1/);
  await page.getByText("10 of 23 sources").waitFor();
  expect(await rows.allTextContents()).toEqual(
    expect.arrayContaining([expect.stringContaining("Note 10"), expect.stringContaining("Note 19")]),
  );
  expect(await rows.count()).toBe(10);
  expect(await page.getByRole("navigation", { name: "Pages" }).count()).toBe(0);
  await page.getByLabel("Search sources by name").fill("zzz");
  await page.getByText("No source matches").waitFor();
  await page.getByRole("link", { name: "Clear search and filter" }).click();
  await page.getByText("Page 1 of 2").waitFor();

  // The unreadable file fails again after its retry; the filter finds it alone.
  await page.getByLabel("Filter sources by status").selectOption("failed");
  await sourceRow(page, "broken.pdf").getByText("Failed", { exact: true }).waitFor({ timeout: 30_000 });
  await page.getByText("1 of 23 sources").waitFor();
  expect(await rows.count()).toBe(1);
  await shootThemes(page, "sources-filtered");
  await page.getByLabel("Filter sources by status").selectOption("");
  await page.getByText("Page 1 of 2").waitFor();
}

/** Creates a knowledge base, uploads a document, searches it and deletes the base. */
export async function knowledgeBaseSteps(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/#/kb`);
  await page.getByLabel("Name", { exact: true }).fill("Policies");
  await page.getByRole("button", { name: "Create knowledge base" }).click();
  await page.getByRole("heading", { name: "Policies" }).waitFor();
  await page.locator('input[data-pick="files"]').setInputFiles({
    name: "leave.txt",
    mimeType: "text/plain",
    buffer: Buffer.from("Holiday leave is twenty-five days a year. Ask your manager two weeks ahead."),
  });
  const doc = page.getByRole("list", { name: "Documents" }).getByRole("listitem").filter({ hasText: "leave.txt" });
  await doc.getByText("Ready").waitFor({ timeout: 90_000 });
  await page.getByRole("search").getByLabel("Query").fill("holiday leave days");
  await page.getByRole("button", { name: "Search" }).click();
  await page.locator(".result").first().waitFor();
  await knowledgeBaseKey(page, base);
  await shootThemes(page, "kb");
  await page.goto(`${base}/#/kb`);
  await page.getByRole("link", { name: "Policies" }).waitFor();
  await shootThemes(page, "kb-list");
  await page.getByRole("link", { name: "Policies" }).click();
  await page.getByRole("button", { name: "Delete…" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete knowledge base" }).click();
  await page.getByText("No knowledge bases yet").waitFor();
}

/** A key of the open knowledge base: no ingest scope offered, a curl of its search, and the key searches it. */
async function knowledgeBaseKey(page: Page, base: string): Promise<void> {
  await page.getByLabel("Key name").fill("kb app");
  expect(await page.getByRole("checkbox", { name: /Ingest/ }).count()).toBe(0);
  await page.getByRole("button", { name: "Create key" }).click();
  const dialog = page.getByRole("dialog");
  const key = await dialog.getByLabel("Your new API key").inputValue();
  const kbId = /#\/kb\/([^/?]+)/.exec(page.url())?.[1];
  const snippet = (await dialog.getByTestId("client-config").textContent()) ?? "";
  expect(snippet).toContain(`${base}/api/kb/${kbId}/search`);
  expect(snippet).toContain(`Bearer ${key}`);
  await dialog.getByRole("button", { name: "I have stored it" }).click();
  await page.getByText(`${key.slice(0, 12)}…`).waitFor();
  const r = await page.request.post(`${base}/api/kb/${kbId}/search`, {
    headers: { authorization: `Bearer ${key}` },
    data: { query: "holiday leave" },
  });
  expect(r.status()).toBe(200);
  expect(JSON.stringify(await r.json())).toContain("twenty-five days");
}

/** Search, status filter and pagination; pagination needs 11 pipelines, so the user goes pro for a moment. */
export async function listSteps(page: Page, ctx: BrowserContext, ragd: Ragd, email: string): Promise<void> {
  await page.goto(`${ragd.url}/#/pipelines`);
  const handbook = page.getByRole("link", { name: "Handbook" });
  await handbook.waitFor();
  await page.getByLabel("Search pipelines by name").fill("HAND");
  await page.waitForURL(/search=HAND/);
  await handbook.waitFor();
  await page.getByLabel("Search pipelines by name").fill("zzz");
  await page.getByText("No pipeline matches").waitFor();
  await page.getByRole("link", { name: "Clear search and filter" }).click();
  await handbook.waitFor();
  await page.getByLabel("Filter by status").selectOption("ready");
  await page.getByText("No pipeline matches").waitFor();
  await page.getByLabel("Filter by status").selectOption("empty");
  await handbook.waitFor();
  await page.getByLabel("Filter by status").selectOption("");

  const upgraded = ragd.cli(["user", "set-tier", "--email", email, "--tier", "pro"]);
  expect(upgraded.code, upgraded.out).toBe(0);
  const extra: string[] = [];
  for (let i = 1; i <= 10; i++) {
    const r = await api(ctx, `${ragd.url}/api/rag/pipelines`, {
      json: { name: `Extra ${String(i).padStart(2, "0")}` },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    extra.push(r.body.id);
  }
  await page.reload();
  await page.getByRole("banner").getByText("Pro").waitFor();
  await page.getByText("Page 1 of 2").waitFor();
  expect(await page.locator("tbody tr").count()).toBe(10);
  await shootThemes(page, "pipelines-list");
  await page.getByRole("link", { name: "Next →" }).click();
  await page.getByText("Page 2 of 2").waitFor();
  await handbook.waitFor();
  for (const id of extra)
    expect((await api(ctx, `${ragd.url}/api/rag/pipelines/${id}`, { method: "DELETE" })).status).toBe(200);
  expect(ragd.cli(["user", "set-tier", "--email", email, "--tier", "free"]).code).toBe(0);
  // The header follows the server's word on the next page, without a reload.
  await page.goto(`${ragd.url}/#/account`);
  await page.getByRole("banner").getByText("Free").waitFor();
}

/** Every main screen at a phone's width, light and dark. */
export async function phoneSteps(page: Page, base: string, pipelineId: string): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [hash, name] of [
    ["/pipelines", "pipelines"],
    [`/pipelines/${pipelineId}/sources`, "sources"],
    [`/pipelines/${pipelineId}/keys`, "keys"],
    [`/pipelines/${pipelineId}/playground`, "playground"],
    [`/pipelines/${pipelineId}/settings`, "settings"],
    [`/pipelines/${pipelineId}/quality`, "quality"],
    ["/kb", "kb"],
    ["/account", "account"],
  ]) {
    await page.goto(`${base}/#${hash}`);
    await page.getByRole("main").getByRole("heading").first().waitFor();
    await page.waitForLoadState("networkidle");
    await shootThemes(page, `phone-${name}`);
    // Nothing wider than the phone: the page does not scroll sideways, whatever it holds.
    const widths = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
    expect({ screen: name, width: widths[0] }).toEqual({ screen: name, width: widths[1]! });
    // Every link of the top navigation, and every tab of a pipeline, is on the screen.
    const tabs = await page.locator(".tabs a").all();
    for (const link of [...(await page.getByRole("banner").getByRole("link").all()), ...tabs]) {
      const box = await link.boundingBox();
      expect({ screen: name, link: await link.textContent(), right: Math.min(box!.x + box!.width, 390) }).toEqual({
        screen: name,
        link: await link.textContent(),
        right: box!.x + box!.width,
      });
    }
  }
  await page.setViewportSize({ width: 1280, height: 860 });
}

/** The Webhooks tab: a loopback URL is refused next to the field; a good one shows its secret once. */
export async function webhookSteps(page: Page, base: string, pipelineId: string): Promise<void> {
  await page.goto(`${base}/#/pipelines/${pipelineId}/webhooks`);
  await page.getByText("No webhooks yet").waitFor();
  await page.getByLabel("URL", { exact: true }).fill("http://127.0.0.1:9/hook");
  await page.getByRole("button", { name: "Add webhook" }).click();
  await page.getByText("refused by the fetch rules (loopback)").first().waitFor();

  // A name is checked when it is delivered to; `.invalid` never resolves.
  await page.getByLabel("URL", { exact: true }).fill("http://hooks.invalid/ragd");
  await page.getByLabel("source.ready").check();
  await page.getByRole("button", { name: "Add webhook" }).click();
  const secret = await page.getByTestId("webhook-secret").inputValue();
  expect(secret).toMatch(/^whsec_/);
  await page.getByRole("button", { name: "I have stored it" }).click();
  await page.getByRole("list", { name: "Webhooks" }).getByText("http://hooks.invalid/ragd").waitFor();
  expect(await page.content()).not.toContain(secret);
  await page.getByRole("button", { name: "Deliveries" }).click();
  await page.getByText("No deliveries yet").waitFor();
  await shootThemes(page, "webhooks");
  await page.getByRole("button", { name: "Delete" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete webhook" }).click();
  await page.getByText("No webhooks yet").waitFor();
}
