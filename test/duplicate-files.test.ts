/**
 * The same file uploaded twice to a pipeline or a knowledge base is recognised by the
 * hash of its bytes and refused with 409 naming the source that has it (docs/API.md,
 * "The same file twice"), so queries never answer with the same chunk twice.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";
import { bytesOf, Client } from "./support/ingest";

let t: TestApp;
let c: Client;
beforeAll(async () => {
  t = await makeApp({ workers: 1 });
  c = await Client.create(t);
});
afterAll(() => t.close());

describe("pipelines", () => {
  test("a second upload of the same bytes is 409 naming the first; other bytes are taken", async () => {
    const pid = await c.pipeline({ name: "dups" });
    const first = await c.upload(pid, "report.txt", bytesOf("Quarterly report: revenue grew."));
    expect(first.put.status).toBe(200);
    expect((await c.settled(pid, first.created.id)).status).toBe("ready");

    const again = await c.upload(pid, "report-copy.txt", bytesOf("Quarterly report: revenue grew."));
    expect(again.put.status).toBe(409);
    expect(again.put.body.error.code).toBe("conflict");
    expect(again.put.body.error.message).toContain(first.created.id);
    expect(again.put.body.error.details).toEqual([{ field: "file", message: `duplicateOf: ${first.created.id}` }]);
    // Nothing was added: the second source still waits for a file, and no chunk doubled.
    expect((await c.source(pid, again.created.id))!.status).toBe("awaiting_upload");
    expect(await t.services.vectorStore.countRows(pid, 1)).toBe(1);

    const other = await c.upload(pid, "other.txt", bytesOf("Another report entirely."));
    expect(other.put.status).toBe(200);
  });

  test("a failed source does not block the same file", async () => {
    const pid = await c.pipeline({ name: "dups-failed" });
    const first = await c.upload(pid, "blank.txt", bytesOf("   \n  "));
    expect((await c.settled(pid, first.created.id)).status).toBe("failed");
    const again = await c.upload(pid, "blank.txt", bytesOf("   \n  "));
    expect(again.put.status).toBe(200);
  });
});

describe("knowledge bases", () => {
  test("uploading the same file twice is 409 and stores nothing more", async () => {
    const kb = (await c.call("POST", "/api/kb", { name: "kb dups" })).body;
    const send = () => {
      const form = new FormData();
      form.append("file", new File(["Password resets are in settings."], "reset.txt", { type: "text/plain" }));
      return t.handle(
        new Request(`http://localhost/api/kb/${kb.id}/upload`, {
          method: "POST",
          headers: { cookie: c.cookie, origin: "http://localhost" },
          body: form,
        }),
      );
    };
    const first = await send();
    expect(first.status).toBe(202);
    const firstId = ((await first.json()) as { document: { id: string } }).document.id;
    const second = await send();
    expect(second.status).toBe(409);
    expect(((await second.json()) as { error: { message: string } }).error.message).toContain(firstId);
    const docs = (await c.call("GET", `/api/kb/${kb.id}`)).body;
    expect(docs.documents.map((d: { id: string }) => d.id)).toEqual([firstId]);
  });
});
