/**
 * The Admin screen in a real browser against ragd run as a process: only the
 * administrator sees it; they change a tier, reset a password (shown once), disable
 * an account, delete it after typing its email, and read the audit log; they add a
 * user and invite one (people-steps.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import type { BrowserContext, Page } from "playwright-core";
import { peopleSteps } from "./people-steps";
import { api, CHROMIUM, launchChromium, shootThemes, startRagd, type Ragd } from "./support";

const PASSWORD = "correct horse battery";
const ADMIN = `boss-${Date.now()}@example.com`;
const MEMBER = `member-${Date.now()}@example.com`;

describe.skipIf(!existsSync(CHROMIUM))("the Admin screen in a real browser", () => {
  let ragd: Ragd;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let ctx: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ragd = await startRagd();
    chrome = await launchChromium();
    ctx = await chrome.browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await ctx.newPage();
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (e) => pageErrors.push(e.message));
  }, 120_000);

  afterAll(async () => {
    await chrome?.close();
    await ragd?.stop();
  });

  const signUp = async (email: string) => {
    await page.goto(`${ragd.url}/#/signup`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Pipelines" }).waitFor();
  };
  const signOut = async () => {
    await page.getByRole("banner").getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
  };
  const row = (email: string) => page.getByTestId("admin-user-row").filter({ hasText: email });

  test("a member sees no Admin link; the first account does, and its account page says administrator", async () => {
    await signUp(ADMIN);
    await signOut();
    await signUp(MEMBER);
    await page.getByText(/using 0 of 1 on your free tier/i).waitFor();
    expect(await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).count()).toBe(0);
    await page.goto(`${ragd.url}/#/admin`);
    expect(await page.getByRole("heading", { name: "Admin" }).count()).toBe(0);
    await signOut();

    await page.getByLabel("Email").fill(ADMIN);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
    await page.getByRole("heading", { name: "Admin" }).waitFor();
    await page.goto(`${ragd.url}/#/account`);
    await page.getByText("No limit (administrator)").waitFor();
    // The administrator is on the free tier too, but the pipeline list states no limit.
    await page.goto(`${ragd.url}/#/pipelines`);
    await page.getByRole("heading", { name: "Pipelines" }).waitFor();
    expect(await page.getByText(/on your free tier/i).count()).toBe(0);
  }, 60_000);

  test("change a tier, reset a password, disable, delete after typing the email, and see it all audited", async () => {
    await page.goto(`${ragd.url}/#/admin`);
    await row(MEMBER).getByLabel(`Tier of ${MEMBER}`).selectOption("pro");
    await page.getByText(`${MEMBER}: tier changed.`).first().waitFor();

    await row(MEMBER)
      .getByRole("button", { name: `Reset password: ${MEMBER}` })
      .click();
    await page.getByRole("button", { name: "Reset password", exact: true }).click();
    const temp = await page.getByTestId("temp-password").inputValue();
    expect(temp).toMatch(/^[0-9A-Za-z]{16,}$/);
    await shootThemes(page, "admin-temp-password");
    await page.getByRole("button", { name: "I have stored it" }).click();
    const login = await api(ctx, `${ragd.url}/api/auth/login`, { json: { email: MEMBER, password: temp } });
    expect(login.status).toBe(200);

    await row(MEMBER)
      .getByRole("button", { name: `Disable: ${MEMBER}` })
      .click();
    await row(MEMBER).getByText("Disabled").waitFor();
    const refused = await api(ctx, `${ragd.url}/api/auth/login`, { json: { email: MEMBER, password: temp } });
    expect(refused.body.error.code).toBe("account_disabled");
    await shootThemes(page, "admin-users");

    await row(MEMBER)
      .getByRole("button", { name: `Delete…: ${MEMBER}` })
      .click();
    const confirm = page.getByRole("button", { name: "Delete user" });
    expect(await confirm.isDisabled()).toBe(true);
    await page.getByLabel(/to confirm/).fill(MEMBER);
    await confirm.click();
    await page.getByText(`${MEMBER} deleted.`).first().waitFor();
    await row(MEMBER).waitFor({ state: "detached" });

    const audit = page.getByTestId("audit-row");
    await audit.filter({ hasText: "deleted" }).first().waitFor();
    expect(await audit.count()).toBe(4);
    expect(await audit.first().textContent()).toContain(ADMIN);
    await audit.filter({ hasText: "free → pro" }).waitFor();
    expect(pageErrors).toEqual([]);
  }, 60_000);

  test("the administrator downloads a backup of the whole server from the Admin screen", async () => {
    await page.goto(`${ragd.url}/#/admin`);
    const [download] = await Promise.all([
      page.waitForEvent("download", { timeout: 60_000 }),
      page.getByRole("button", { name: "Download backup" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.tar$/);
    const bytes = await Bun.file((await download.path())!).bytes();
    // A tar whose first entry is the manifest (docs/API.md, Backup and restore).
    expect(new TextDecoder().decode(bytes.subarray(0, 100))).toContain("manifest.json");
    expect(bytes.length).toBeGreaterThan(10_000);
    expect(pageErrors).toEqual([]);
  }, 90_000);

  test("the administrator adds a user and invites one; the link works once, a revoked one not at all", async () => {
    await peopleSteps(page, chrome.browser, ragd.url, String(Date.now()));
    expect(pageErrors).toEqual([]);
  }, 90_000);
});
