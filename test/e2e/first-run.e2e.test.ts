/**
 * A new install in a real browser (system Chromium, headless) against ragd run as a
 * process (e2e/support.ts): the first screen opens on sign-up and says the first account
 * becomes the administrator; once it exists the screen is the usual sign-in. A new key's
 * MCP command snippet names the executable the server runs as, or, run from source, says
 * to build it first.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, realpathSync } from "node:fs";
import type { Page } from "playwright-core";
import { api, BINARY, CHROMIUM, launchChromium, startRagd, type Ragd } from "./support";

const haveChromium = existsSync(CHROMIUM);

describe.skipIf(!haveChromium)("a new install in a real browser", () => {
  let ragd: Ragd;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const password = "correct horse battery";

  beforeAll(async () => {
    ragd = await startRagd();
    chrome = await launchChromium();
    page = await (await chrome.browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    page.setDefaultTimeout(15_000);
  }, 120_000);

  afterAll(async () => {
    await chrome?.close();
    await ragd?.stop();
  });

  test("the first screen is sign-up, saying the first account becomes the administrator", async () => {
    await page.goto(`${ragd.url}/`);
    await page.getByTestId("first-account").waitFor();
    expect(await page.getByTestId("first-account").textContent()).toBe(
      "No account exists yet: the first account created becomes the administrator.",
    );
    expect(await page.getByRole("heading", { name: "Create an account" }).count()).toBe(1);
    // No account to sign in to: no way to the sign-in form.
    expect(await page.getByRole("link", { name: "Sign in" }).count()).toBe(0);
    await page.getByLabel("Email").fill("owner@example.com");
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(/#\/pipelines/);
    const me = await api(page.context(), `${ragd.url}/api/auth/me`);
    expect(me.body.user.isAdmin).toBe(true);
  }, 60_000);

  test("once an account exists, a signed-out visitor gets sign-in, without the note", async () => {
    const other = await chrome.browser.newContext();
    const visitor = await other.newPage();
    await visitor.goto(`${ragd.url}/`);
    await visitor.getByRole("heading", { name: "Sign in to ragd" }).waitFor({ state: "attached" });
    expect(await visitor.getByTestId("first-account").count()).toBe(0);
    await other.close();
  }, 30_000);

  test("a new key's MCP command names this server's executable (or says to build it)", async () => {
    const ctx = page.context();
    const p = await api(ctx, `${ragd.url}/api/rag/pipelines`, { json: { name: "first" } });
    expect(p.status).toBe(201);
    await page.goto(`${ragd.url}/#/pipelines/${p.body.id}/keys`);
    await page.getByLabel("Key name").fill("agent");
    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("MCP (command)").check();
    const config = dialog.getByTestId("client-config");
    const hint = dialog.getByText("For clients that only launch a command");
    if (ragd.kind === "binary") {
      await hint.and(dialog.getByText("this server's own executable")).waitFor();
      const command = JSON.parse((await config.textContent()) ?? "").mcpServers.ragd.command;
      expect(realpathSync(command)).toBe(realpathSync(BINARY));
    } else {
      await hint.and(dialog.getByText("build it first")).waitFor();
    }
  }, 60_000);
});
