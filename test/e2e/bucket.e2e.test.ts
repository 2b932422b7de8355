/**
 * A bucket source in the dashboard, in a real browser (system Chromium, headless)
 * against ragd run as a process, on the Ceph RGW of the tests (test/support/rgw.ts),
 * which it reaches on loopback through RAGD_FETCH_ALLOW: the Add source form's Bucket
 * kind, the source's row with its last sync, its objects as sources, the secret key in
 * no answer, and "Re-fetch now" syncing again after an object was added.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import type { BrowserContext, Page } from "playwright-core";
import type { ObjectStorage } from "../../src/config-storage";
import { presignUrl } from "../../src/files/presign";
import { haveRgw, startRgw, type TestRgw } from "../support/rgw";
import { api, CHROMIUM, type launchChromium, type Ragd, signedInWithPipeline } from "./support";

const haveChromium = existsSync(CHROMIUM);

describe.skipIf(!haveChromium || !haveRgw)("bucket sources in the dashboard", () => {
  let rgw: TestRgw;
  let store: ObjectStorage;
  let ragd: Ragd;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let ctx: BrowserContext;
  let tab: Page;
  let pipelineId = "";
  const row = (name: string) =>
    tab.getByRole("list", { name: "Sources" }).locator(":scope > li").filter({ hasText: name });
  const put = async (key: string, body: string) => {
    const r = await fetch(presignUrl(store, { method: "PUT", key, expiresInS: 60 }), { method: "PUT", body });
    if (!r.ok) throw new Error(`PUT ${key}: ${r.status}`);
  };

  beforeAll(async () => {
    rgw = await startRgw();
    store = await rgw.createBucket("ragd-e2e-bucket");
    await put("handbook/refunds.md", "Refunds are paid within ten days of a return.");
    await put("handbook/guides/hours.md", "The help desk opens at nine and closes at five.");
    ({ ragd, chrome, ctx, tab, pipelineId } = await signedInWithPipeline(
      { RAGD_FETCH_ALLOW: "127.0.0.1" },
      "bucket",
      "Handbook",
    ));
  }, 300_000);

  afterAll(async () => {
    await chrome?.close();
    await ragd?.stop();
    await rgw?.stop();
  }, 30_000);

  test("a bucket added from the form, its objects, its last sync, and a sync again", async () => {
    await tab.goto(`${ragd.url}/#/pipelines/${pipelineId}/sources`);
    await tab.getByLabel("Bucket", { exact: true }).check();
    await tab.getByLabel("Name", { exact: true }).fill("Handbook bucket");
    await tab.getByLabel("Store address").fill(store.endpoint!);
    await tab.getByLabel("Bucket name").fill(store.bucket);
    await tab.getByLabel("Prefix").fill("handbook/");
    await tab.getByLabel("Access key").fill(store.accessKeyId!);
    await tab.getByLabel("Secret key").fill(store.secretAccessKey!);
    await tab.getByRole("button", { name: "Add source" }).click();

    await row("Handbook bucket")
      .getByText("Last sync: 2 added, 0 changed, 0 deleted, 0 unchanged, 0 failed")
      .waitFor({ timeout: 60_000 });
    await row("guides/hours.md").getByText("guides/hours.md").first().waitFor();
    expect(await tab.content()).not.toContain(store.secretAccessKey!);

    await put("handbook/returns.md", "Returns need the receipt.");
    await row("Handbook bucket").getByRole("button", { name: "Fetch Handbook bucket again now" }).click();
    await row("Handbook bucket")
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
    expect(JSON.stringify(all)).not.toContain(store.secretAccessKey!);
  }, 180_000);
});
