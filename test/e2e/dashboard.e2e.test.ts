/**
 * The dashboard in a real browser (system Chromium, headless) against ragd run as
 * a process: the compiled dist/ragd when it exists, else from source. One user
 * walks the whole product in order; every request the page makes is recorded and
 * none may leave loopback. Screenshots of each main screen (light, dark, phone)
 * go to test/.artifacts/screenshots/.
 *
 * Steps that need the data-source or knowledge-base endpoints probe for them
 * first and log "pending" when the server answers 404 "no such route".
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import type { BrowserContext, Page, Request } from "playwright-core";
import { api, CHROMIUM, launchChromium, recordRequests, shootThemes, startRagd, type Ragd } from "./support";
import { knowledgeBaseSteps, listSteps, phoneSteps, sourceSteps, webhookSteps } from "./steps";
import { sourcePageSteps } from "./source-page-steps";
import { folderUploadSteps } from "./upload-steps";
import { qualitySteps } from "./quality-steps";
import { queryOptionSteps } from "./query-options-steps";
import { startFakeOllama, type FakeOllama } from "../support/fake-ollama";

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.log(`dashboard e2e skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

// CI installs the browser; there a missing one is a failure, not a quiet skip.
test.skipIf(haveChromium || !process.env.CI)("CI has the browser the dashboard tests need", () => {
  expect(existsSync(CHROMIUM)).toBe(true);
});

describe.skipIf(!haveChromium)("dashboard in a real browser", () => {
  let ragd: Ragd;
  let ollama: FakeOllama;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let ctx: BrowserContext;
  let page: Page;
  let requests: ReturnType<typeof recordRequests>;
  const pageErrors: string[] = [];
  const email = `e2e-${Date.now()}@example.com`;
  const adminEmail = `admin-${Date.now()}@example.com`;
  const password = "correct horse battery";
  let pipelineId = "";
  let apiKey = "";
  const at = (hash: string) => page.goto(`${ragd.url}/#${hash}`);

  beforeAll(async () => {
    // A stand-in Ollama on loopback, so the model picker has installed models to offer.
    ollama = await startFakeOllama({ models: { "nomic-embed-text:latest": 768 } });
    ragd = await startRagd({ RAGD_OLLAMA_URL: ollama.url });
    // The first account is the administrator; the user walked through below signs up after it.
    expect(ragd.cli(["user", "create", "--email", adminEmail, "--password", password]).code).toBe(0);
    console.log(`dashboard e2e: ragd from ${ragd.kind} at ${ragd.url}`);
    chrome = await launchChromium();
    ctx = await chrome.browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: "light" });
    page = await ctx.newPage();
    page.setDefaultTimeout(15_000);
    requests = recordRequests(page);
    page.on("pageerror", (e) => pageErrors.push(e.message));
  }, 180_000);

  afterAll(async () => {
    await chrome?.close();
    await ragd?.stop();
    await ollama?.stop();
  });

  test("a wrong password shows the API's own message, not a blank screen", async () => {
    await page.goto(`${ragd.url}/`);
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    await shootThemes(page, "signin");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("wrong password");
    await page.getByRole("button", { name: "Sign in" }).click();
    const answer = await api(ctx, `${ragd.url}/api/auth/login`, { json: { email, password: "wrong password" } });
    await page.getByRole("alert").filter({ hasText: answer.body.error.message }).waitFor();
    await shootThemes(page, "signin-error");
  }, 30_000);

  test("sign up, and see who you are and your tier", async () => {
    await page.getByRole("link", { name: "Create account", exact: true }).click();
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Pipelines" }).waitFor();
    const who = page.getByRole("banner").getByRole("link", { name: new RegExp(email) });
    expect(await who.textContent()).toContain("Free");
    await page.getByText("Create your first pipeline").waitFor();
    await shootThemes(page, "pipelines-empty");
  }, 30_000);

  test("create a pipeline: units explained, bad values caught next to the field", async () => {
    await page.getByRole("link", { name: "New pipeline" }).first().click();
    await page.getByLabel("Name", { exact: true }).fill("Handbook");
    await page.getByLabel("Description").fill("Staff handbook and support answers");
    // The picker (or, without GET /api/embedding-models, the text field) starts on the built-in model.
    expect(await pickedModel(page)).toBe("builtin-glove");
    const offered = await page.getByLabel("Embedding model").locator("option").allTextContents();
    expect(offered).toContain("ollama/nomic-embed-text");
    await page.getByText("installed in Ollama").waitFor();
    // The search language starts on auto and offers the server's languages by name.
    expect(await page.getByLabel("Search language").inputValue()).toBe("auto");
    await page
      .getByLabel("Search language")
      .locator("option", { hasText: "Japanese (ja)" })
      .waitFor({ state: "attached" });
    // The OCR field says which language data the server has.
    await page.getByText(/On this server: English \(eng, built in\)/).waitFor();
    await page.getByLabel("Strategy").selectOption("token");
    await page.getByText("50 to 20,000 tokens").waitFor();
    await page.getByLabel("Strategy").selectOption("recursive");
    await page.getByLabel("Overlap").fill("1000");
    await page.getByRole("button", { name: "Create pipeline" }).click();
    await page.getByText("Must be less than the chunk size").waitFor();
    await shootThemes(page, "pipeline-new-invalid");
    await page.getByLabel("Overlap").fill("200");
    await page.getByRole("button", { name: "Create pipeline" }).click();
    await page.waitForURL(/#\/pipelines\/(?!new$)[^/]+$/);
    pipelineId = decodeURIComponent(new URL(page.url()).hash.split("/")[2]!);
    await page.getByRole("heading", { name: /Handbook/ }).waitFor();
    await shootThemes(page, "pipeline-sources");
  }, 30_000);

  test("a second pipeline on the free tier says why it cannot be made and what to do", async () => {
    // Sent before the picker has read the server's models (Ollama answers its list late):
    // the form goes without a model, for the server's default, and the server answers.
    await ollama.set({ listLatencyMs: 1_500 });
    try {
      await at("/pipelines/new");
      await page.getByLabel("Name", { exact: true }).fill("Second");
      await page.getByRole("button", { name: "Create pipeline" }).click();
      await page.getByRole("alert").filter({ hasText: "tier is full" }).waitFor();
      expect(await page.getByText("Choose or type a model.").count()).toBe(0);
    } finally {
      await ollama.set({ listLatencyMs: 0 });
    }
    const note = page.getByRole("alert").filter({ hasText: "tier is full" });
    await note.waitFor();
    expect(await note.textContent()).toMatch(/free tier allows 1 pipeline/);
    expect(await note.textContent()).toContain("ragd user set-tier");
    await shootThemes(page, "tier-limit");
  }, 30_000);

  test("the list: search by name, status filter, and pagination once the tier allows more", async () => {
    await listSteps(page, ctx, ragd, email);
  }, 60_000);

  test("create an API key and read it once from the dialog", async () => {
    await at(`/pipelines/${pipelineId}/keys`);
    await page.getByText("No keys yet").waitFor();
    await page.getByLabel("Key name").fill("e2e");
    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByText("will never show it again").waitFor();
    apiKey = await dialog.getByLabel("Your new API key").inputValue();
    expect(apiKey).toMatch(/^rag_[A-Za-z0-9]{40,}$/);
    // Ready-to-paste client configurations carry the key and this server's address.
    const config = dialog.getByTestId("client-config");
    const mcp = JSON.parse((await config.textContent()) ?? "");
    expect(mcp.mcpServers.ragd).toEqual({
      type: "http",
      url: `${ragd.url}/mcp`,
      headers: { Authorization: `Bearer ${apiKey}` },
    });
    await dialog.getByLabel("MCP (command)").check();
    expect(JSON.parse((await config.textContent()) ?? "").mcpServers.ragd).toMatchObject({
      args: ["mcp", "--url", ragd.url],
      env: { RAGD_API_KEY: apiKey },
    });
    for (const [client, line] of [
      ["LangChain", "from langchain_core.retrievers import BaseRetriever"],
      ["LlamaIndex", "from llama_index.core.retrievers import BaseRetriever"],
    ]) {
      await dialog.getByLabel(client!).check();
      expect(await config.textContent()).toContain(line!);
      expect(await config.textContent()).toContain(apiKey);
    }
    await dialog.getByLabel("MCP (HTTP)").check();
    await shootThemes(page, "key-created");
    await dialog.getByRole("button", { name: "I have stored it" }).click();
    await page.getByText(`${apiKey.slice(0, 12)}…`).waitFor();
    await shootThemes(page, "keys");
  }, 30_000);

  test("a key with the ingest scope and an expiry shows both in the key table", async () => {
    await at(`/pipelines/${pipelineId}/keys`);
    await page.getByLabel("Key name").fill("sync job");
    await page.getByRole("checkbox", { name: /Query/ }).uncheck();
    await page.getByRole("checkbox", { name: /Ingest/ }).check();
    await page.getByLabel("Expires (optional)").fill("2030-01-31");
    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog");
    const ingestKey = await dialog.getByLabel("Your new API key").inputValue();
    // It cannot query, so no agent or retriever snippets: a documents API call instead.
    const example = (await dialog.getByTestId("ingest-example").textContent()) ?? "";
    expect(example).toContain(`PUT ${ragd.url}/api/rag/documents/`);
    expect(example).toContain(`Bearer ${ingestKey}`);
    expect(await dialog.getByTestId("client-config").count()).toBe(0);
    await dialog.getByRole("button", { name: "I have stored it" }).click();
    const row = page.getByRole("row", { name: /sync job/ });
    await row.waitFor();
    expect(await row.getByRole("cell").nth(1).textContent()).toBe("ingest");
    expect(await row.locator("time").first().getAttribute("datetime")).toMatch(/^2030-0[12]-/);
    // It cannot query with its key either.
    const refused = await api(ctx, `${ragd.url}/api/rag/query`, {
      headers: { authorization: `Bearer ${ingestKey}` },
      json: { query: "refunds" },
    });
    expect(refused.status).toBe(403);
    // Revoked again, so the steps below find only the first key.
    await page.getByRole("button", { name: "Revoke sync job" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
    await row.waitFor({ state: "detached" });
  }, 30_000);

  test("the playground searches as the signed-in owner and creates no key; a curl command", async () => {
    const keyNames = async () =>
      (await api(ctx, `${ragd.url}/api/rag/pipelines/${pipelineId}/keys`)).body.map((k: { name: string }) => k.name);
    const keysBefore = await keyNames();
    const sent: string[] = [];
    const onRequest = (r: Request) => void sent.push(`${r.method()} ${new URL(r.url()).pathname}`);
    page.on("request", onRequest);
    await at(`/pipelines/${pipelineId}/playground`);
    await page.getByLabel("Query", { exact: true }).fill("how long do refunds take");
    // The blend shows what applies: the built-in embedder's default, not a neutral 0.5.
    await page.getByText("Blend (alpha): 0.20 (pipeline's)").waitFor();
    expect(await page.getByLabel(/Blend \(alpha\)/).inputValue()).toBe("0.2");
    await page.getByLabel("Keyword").check();
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("heading", { name: "No results" }).waitFor();
    const curl = await page.getByLabel("curl command").textContent();
    expect(curl).toContain("/api/rag/query");
    expect(curl).toContain('"mode":"keyword"');
    expect(curl).not.toContain(apiKey);
    expect(curl).toContain("$RAGD_API_KEY");
    page.off("request", onRequest);
    expect(sent).toContain(`POST /api/rag/pipelines/${pipelineId}/query`);
    expect(sent.filter((x) => x.startsWith("POST") && x.endsWith("/keys"))).toEqual([]);
    expect(await keyNames()).toEqual(keysBefore);
    await shootThemes(page, "playground-empty");
  }, 30_000);

  test("sources: text → ready → found by a query; a failed source shows why; a file uploads", async () => {
    await sourceSteps(page, ragd.url, pipelineId);
    // Statuses came from the pipeline's event stream, not from polling every 1.5 s.
    expect(requests.urls.some((u) => u.endsWith(`/api/rag/pipelines/${pipelineId}/events`))).toBe(true);
  }, 240_000);

  test("a folder of twenty files: one progress view, the refused file listed, the rest ready", async () => {
    await folderUploadSteps(page, ragd.url, pipelineId);
  }, 120_000);

  test("a source's page: its text, chunks with offsets and history; a result's chunk links there", async () => {
    await sourcePageSteps(page, ragd.url, pipelineId);
  }, 60_000);

  test("the playground's query options: highlights, context, groups, facets and boosts", async () => {
    await queryOptionSteps(page, ragd.url, pipelineId);
  }, 30_000);

  test("quality: a typed set runs in every mode and shows its figures; a re-index can wait on it", async () => {
    await qualitySteps(page, ragd.url, pipelineId);
  }, 120_000);

  test("webhooks: a refused address is named at the field; the secret is shown once; the log", async () => {
    await webhookSteps(page, ragd.url, pipelineId);
  }, 60_000);

  test("knowledge bases: create, upload, see status, search, delete", async () => {
    await knowledgeBaseSteps(page, ragd.url);
  }, 240_000);

  test("every main screen at phone width", async () => {
    await phoneSteps(page, ragd.url, pipelineId);
  }, 60_000);

  test("keyboard: the skip link comes first, and Escape closes a dialog", async () => {
    await at("/pipelines");
    await page.reload();
    await page.getByRole("heading", { name: "Pipelines" }).waitFor();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    await at(`/pipelines/${pipelineId}/keys`);
    await page.getByRole("button", { name: "Revoke e2e" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("dialog").waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Cancel");
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
  }, 30_000);

  test("revoke the key: it stops working at once", async () => {
    await page.getByRole("button", { name: "Revoke e2e" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
    await page.getByText("No keys yet").waitFor();
    const res = await api(ctx, `${ragd.url}/api/rag/query`, {
      headers: { authorization: `Bearer ${apiKey}` },
      json: { query: "anything" },
    });
    expect(res.status).toBe(401);

    // The playground needs no key: it still searches, and still no key appears.
    await at(`/pipelines/${pipelineId}/playground`);
    await page.getByLabel("Query", { exact: true }).fill("opening hours");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("heading", { name: "Results" }).waitFor();
    expect((await api(ctx, `${ragd.url}/api/rag/pipelines/${pipelineId}/keys`)).body).toEqual([]);
  }, 30_000);

  test("delete the pipeline after a confirmation that names what goes", async () => {
    await at(`/pipelines/${pipelineId}/settings`);
    await page.getByText("does not re-index existing data").waitFor();
    await shootThemes(page, "settings");
    await page.getByRole("button", { name: "Delete pipeline…" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByText("the pipeline “Handbook”").waitFor();
    await dialog.getByText(/API key/).waitFor();
    await shootThemes(page, "delete-confirm");
    await dialog.getByRole("button", { name: "Delete pipeline" }).click();
    await page.getByText("Create your first pipeline").waitFor();
  }, 30_000);

  test("the API docs are linked and load from ragd itself", async () => {
    await page.getByRole("link", { name: "API docs" }).click();
    await page.waitForURL(/\/docs$/);
    await page.locator("#ui").getByText("ragd").first().waitFor();
    await shootThemes(page, "docs");
    await page.goBack();
    await page.getByRole("heading", { name: "Pipelines" }).waitFor();
  }, 30_000);

  test("sign out", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByText("You are signed out.").waitFor();
    expect((await api(ctx, `${ragd.url}/api/auth/me`)).status).toBe(401);
  }, 30_000);

  test("no request left loopback and the page threw nothing", () => {
    expect(requests.urls.length).toBeGreaterThan(10);
    expect(requests.offsite()).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

/** The embedding model the new pipeline form starts on, once its picker has filled it in (up to 15 s). */
async function pickedModel(page: Page): Promise<string> {
  const field = page.getByLabel("Embedding model");
  for (let i = 0; i < 150; i++) {
    const model = await field.inputValue();
    if (model) return model;
    await page.waitForTimeout(100);
  }
  return "";
}
