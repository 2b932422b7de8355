/**
 * People (issue 41): an administrator, signed in on `page`, sees "Admin" on their
 * badge, creates an account with a password, and an invitation whose link is shown
 * once; the invited person opens the link in a browser of their own, chooses a
 * password and is signed in; the link is refused when opened again, and a revoked
 * one is refused too.
 */
import { expect } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { shootThemes } from "./support";

const PASSWORD = "invited horse battery";

/** Makes an invitation from the Admin screen's form; returns its link from the shown-once dialog. */
async function invite(page: Page, email: string): Promise<string> {
  const form = page.getByRole("region", { name: "Add a user" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Link valid for").selectOption("7");
  await form.getByRole("button", { name: "Create invitation" }).click();
  const link = await page.getByTestId("invitation-link").inputValue();
  expect(link).toMatch(/\/#\/invite\/[A-Za-z0-9_-]{40,}$/);
  return link;
}

/** Opens `link` in a fresh browser context: a person with no session. */
async function openAsStranger(browser: Browser, link: string): Promise<Page> {
  const other = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  other.setDefaultTimeout(15_000);
  await other.goto(link);
  await other.getByRole("heading", { name: "Join ragd" }).waitFor();
  return other;
}

export async function peopleSteps(page: Page, browser: Browser, base: string, stamp: string): Promise<void> {
  await page.goto(`${base}/#/admin`);
  await page.getByRole("heading", { name: "Add a user" }).waitFor();
  expect(await page.getByRole("banner").getByTestId("admin-badge").textContent()).toContain("Admin");

  // With a password: made at once.
  const made = `made-${stamp}@example.com`;
  const form = page.getByRole("region", { name: "Add a user" });
  await form.getByLabel("Email").fill(made);
  await form.getByLabel("Password (optional)").fill("a chosen password");
  await form.getByRole("button", { name: "Create user" }).click();
  await page.getByText(`${made} can sign in now.`).first().waitFor();
  await page.getByTestId("admin-user-row").filter({ hasText: made }).waitFor();

  // Without: an invitation, its link shown once, then listed as pending.
  const guest = `guest-${stamp}@example.com`;
  const link = await invite(page, guest);
  await shootThemes(page, "admin-invitation-link");
  await page.getByRole("button", { name: "I have stored it" }).click();
  const rows = page.getByTestId("invitation-row");
  await rows.filter({ hasText: guest }).getByText("Pending").waitFor();

  const person = await openAsStranger(browser, link);
  await person.getByText(`You are invited as ${guest}`).waitFor();
  await person.getByLabel("Choose a password").fill(PASSWORD);
  await shootThemes(person, "invitation-accept");
  await person.getByRole("button", { name: "Set password and sign in" }).click();
  await person.getByRole("heading", { name: "Pipelines" }).waitFor();
  expect(await person.getByRole("banner").getByText(guest).count()).toBe(1);
  expect(await person.getByTestId("admin-badge").count()).toBe(0);
  await person.context().close();

  const again = await openAsStranger(browser, link);
  await again.getByTestId("invite-refused").getByText("This invitation has been used already").waitFor();
  expect(await again.getByLabel("Choose a password").count()).toBe(0);
  await again.context().close();
  await page.reload();
  await rows.filter({ hasText: guest }).getByText("Used").waitFor();

  // Revoked: the link answers no more.
  const late = `late-${stamp}@example.com`;
  const lateLink = await invite(page, late);
  await page.getByRole("button", { name: "I have stored it" }).click();
  await rows
    .filter({ hasText: late })
    .getByRole("button", { name: `Revoke: ${late}` })
    .click();
  await rows.filter({ hasText: late }).getByText("Revoked").waitFor();
  const refused = await openAsStranger(browser, lateLink);
  await refused.getByText("This invitation was revoked").waitFor();
  await refused.context().close();
}
