/**
 * The dashboard in the browser's language: a real Chromium with a Chinese locale
 * (navigator.languages = zh-CN) against ragd run as a process. The sign-in and the
 * pipelines screens speak Chinese, a date is written the Chinese way, the header's
 * switch turns the page to English, and the choice outlives a reload.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import type { BrowserContext, Page } from "playwright-core";
import { api, CHROMIUM, launchChromium, recordRequests, shoot, startRagd, type Ragd } from "./support";

describe.skipIf(!existsSync(CHROMIUM))("dashboard in a Chinese browser", () => {
  let ragd: Ragd;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let ctx: BrowserContext;
  let page: Page;
  let requests: ReturnType<typeof recordRequests>;
  const pageErrors: string[] = [];
  const email = `zh-${Date.now()}@example.com`;
  const password = "correct horse battery";

  beforeAll(async () => {
    ragd = await startRagd();
    expect(ragd.cli(["user", "create", "--email", email, "--password", password]).code).toBe(0);
    console.log(`i18n e2e: ragd from ${ragd.kind} at ${ragd.url}`);
    chrome = await launchChromium();
    ctx = await chrome.browser.newContext({ locale: "zh-CN", viewport: { width: 1280, height: 860 } });
    page = await ctx.newPage();
    page.setDefaultTimeout(15_000);
    requests = recordRequests(page);
    page.on("pageerror", (e) => pageErrors.push(e.message));
  }, 180_000);

  afterAll(async () => {
    await chrome?.close();
    await ragd?.stop();
  });

  test("the sign-in screen is in Chinese, and <html lang> says so", async () => {
    await page.goto(`${ragd.url}/`);
    expect(await page.evaluate(() => navigator.languages[0])).toBe("zh-CN");
    await page.getByRole("button", { name: "登录" }).waitFor();
    expect(await page.getAttribute("html", "lang")).toBe("zh-CN");
    await page.getByText("在你自己的机器上，检索你自己的文档。").waitFor();
    await shoot(page, "signin-zh-CN");
  }, 30_000);

  test("signed in, the pipelines screen is in Chinese with dates written the Chinese way", async () => {
    await page.getByLabel("电子邮箱").fill(email);
    await page.getByLabel("密码").fill(password);
    await page.getByRole("button", { name: "登录" }).click();
    await page.getByRole("heading", { name: "管道", exact: true }).waitFor();
    await page.getByRole("link", { name: "新建管道" }).first().waitFor();
    const made = await api(ctx, `${ragd.url}/api/rag/pipelines`, { json: { name: "中文手册" } });
    expect(made.status).toBe(201);
    await page.reload();
    const row = page.getByRole("row").filter({ hasText: "中文手册" });
    await row.getByText("空", { exact: true }).waitFor();
    // The "updated" cell: a relative time in Chinese, the full date in its title.
    const time = row.locator("time");
    expect(await time.textContent()).toMatch(/刚刚|秒|分钟/);
    expect(await time.getAttribute("title")).toMatch(/^\d{4}年\d{1,2}月\d{1,2}日/);
    await page.getByRole("columnheader", { name: "嵌入模型" }).waitFor();
    await shoot(page, "pipelines-zh-CN");
  }, 30_000);

  test("the header's switch turns the page to English, and the choice survives a reload", async () => {
    await page.getByRole("combobox", { name: "语言" }).selectOption("en");
    await page.getByRole("heading", { name: "Pipelines", exact: true }).waitFor();
    expect(await page.getAttribute("html", "lang")).toBe("en");
    expect(await page.getByRole("row").filter({ hasText: "中文手册" }).locator("time").getAttribute("title")).toMatch(
      /^[A-Z][a-z]{2} \d{1,2}, \d{4}/,
    );
    await page.reload();
    await page.getByRole("heading", { name: "Pipelines", exact: true }).waitFor();
    expect(await page.getAttribute("html", "lang")).toBe("en");
    expect(await page.getByRole("combobox", { name: "Language" }).inputValue()).toBe("en");
    expect(await page.getByRole("button", { name: "Sign out" }).count()).toBe(1);
  }, 30_000);

  test("nothing left loopback and nothing threw", () => {
    expect(requests.offsite()).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
