/** Browser steps for data sources and knowledge bases, driven as a user would. */
import { expect } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { api, shootThemes, type Ragd } from "./support";

/** A source row in the list, by its name. */
const sourceRow = (page: Page, name: string) =>
  page.getByRole("list", { name: "Sources" }).getByRole("listitem").filter({ hasText: name });

/** Adds text, a refused URL and a file to the pipeline, then queries for the text. */
export async function sourceSteps(page: Page, base: string, pipelineId: string): Promise<void> {
  await page.goto(`${base}/#/pipelines/${pipelineId}/sources`);
  await page.getByText("No sources yet").waitFor();

  await page.getByLabel("Name", { exact: true }).fill("Refunds");
  await page
    .getByLabel("Text to index")
    .fill("Refunds are paid within 14 days to the original card. Ask support for the refund form.");
  await page.getByRole("button", { name: "Add source" }).click();
  await sourceRow(page, "Refunds").getByText("Ready").waitFor({ timeout: 90_000 });

  // A loopback address is refused by the fetch rules: the source fails and says why.
  await page.getByLabel("Web page").check();
  await page.getByLabel("Name", { exact: true }).fill("Local page");
  await page.getByLabel("Page address").fill("http://127.0.0.1:9/nothing");
  await page.getByRole("button", { name: "Add source" }).click();
  const failed = sourceRow(page, "Local page");
  await failed.getByText("Why it failed").waitFor({ timeout: 90_000 });
  await failed.getByRole("button", { name: "Retry" }).waitFor();
  await shootThemes(page, "sources-failed");
  await failed.getByRole("button", { name: "Retry" }).click();
  await failed
    .getByText(/Queued|Processing|Failed/)
    .first()
    .waitFor();

  await page.getByLabel("File", { exact: true }).check();
  await page.locator("input[type=file]").setInputFiles({
    name: "faq.md",
    mimeType: "text/markdown",
    buffer: Buffer.from("# FAQ\n\nOpening hours are nine to five on weekdays.\n"),
  });
  await sourceRow(page, "faq.md").getByText("Ready").waitFor({ timeout: 90_000 });
  await shootThemes(page, "sources");

  await page.goto(`${base}/#/pipelines/${pipelineId}/playground`);
  await page.getByLabel("Query", { exact: true }).fill("refund original card");
  await page.getByLabel("Hybrid").check();
  await page.getByRole("button", { name: "Search" }).click();
  const first = page.locator(".result").first();
  await first.waitFor();
  expect(await first.textContent()).toContain("Refunds");
  expect(await first.textContent()).toMatch(/chunk \d+/);
  await shootThemes(page, "playground-results");
}

/** Creates a knowledge base, uploads a document, searches it and deletes the base. */
export async function knowledgeBaseSteps(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/#/kb`);
  await page.getByLabel("Name", { exact: true }).fill("Policies");
  await page.getByRole("button", { name: "Create knowledge base" }).click();
  await page.getByRole("heading", { name: "Policies" }).waitFor();
  await page.locator("input[type=file]").setInputFiles({
    name: "leave.txt",
    mimeType: "text/plain",
    buffer: Buffer.from("Holiday leave is twenty-five days a year. Ask your manager two weeks ahead."),
  });
  const doc = page.getByRole("list", { name: "Documents" }).getByRole("listitem").filter({ hasText: "leave.txt" });
  await doc.getByText("Ready").waitFor({ timeout: 90_000 });
  await page.getByRole("search").getByLabel("Query").fill("holiday leave days");
  await page.getByRole("button", { name: "Search" }).click();
  await page.locator(".result").first().waitFor();
  await shootThemes(page, "kb");
  await page.goto(`${base}/#/kb`);
  await page.getByRole("link", { name: "Policies" }).waitFor();
  await shootThemes(page, "kb-list");
  await page.getByRole("link", { name: "Policies" }).click();
  await page.getByRole("button", { name: "Delete…" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete knowledge base" }).click();
  await page.getByText("No knowledge bases yet").waitFor();
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
    ["/kb", "kb"],
    ["/account", "account"],
  ]) {
    await page.goto(`${base}/#${hash}`);
    await page.getByRole("main").getByRole("heading").first().waitFor();
    await page.waitForLoadState("networkidle");
    await shootThemes(page, `phone-${name}`);
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
