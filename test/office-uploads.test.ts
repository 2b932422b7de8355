/**
 * Office files uploaded into a knowledge base (multipart, as the dashboard and curl -F send
 * them): accepted with the types browsers give them, indexed, and found by a search; a
 * legacy binary Office file is refused up front with 415 (docs/API.md, "What text is indexed").
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";
import { makeOdf, makeWorkbook, odpPage } from "./support/office";
import { waitFor } from "./support/wait";

let t: TestApp;
let cookie: string;
beforeAll(async () => {
  t = await makeApp();
  cookie = await t.signup();
});
afterAll(() => t.close());

async function upload(kbId: string, name: string, bytes: Uint8Array, type: string) {
  const form = new FormData();
  form.append("file", new File([bytes as Uint8Array<ArrayBuffer>], name, { type }), name);
  const res = await t.handle(
    new Request(`http://localhost/api/kb/${kbId}/upload`, { method: "POST", body: form, headers: { cookie } }),
  );
  return { status: res.status, body: await res.json() };
}

test("ods, odp and rtf uploads are indexed and searchable; a legacy .xls is 415", async () => {
  const kbId = (await t.call("POST", "/api/kb", { cookie, body: { name: "Office" } })).body.id;
  const uploads: [string, Uint8Array, string][] = [
    [
      "rota.ods",
      makeWorkbook(
        {
          Rota: [
            ["Day", "Barista"],
            ["Monday", "Quentin Marlowe"],
          ],
        },
        "ods",
      ),
      "application/vnd.oasis.opendocument.spreadsheet",
    ],
    [
      "talk.odp",
      await makeOdf("presentation", odpPage("p1", "Welcome", ["Lighthouse keeping 101"], "Smile")),
      "application/vnd.oasis.opendocument.presentation",
    ],
    ["memo.rtf", new TextEncoder().encode("{\\rtf1\\ansi Harbour permits renew in March.\\par}"), "application/rtf"],
  ];
  for (const [name, bytes, type] of uploads) expect((await upload(kbId, name, bytes, type)).status).toBe(202);
  const legacy = Uint8Array.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]);
  const refused = await upload(kbId, "old.xls", legacy, "application/vnd.ms-excel");
  expect(refused.status).toBe(415);
  expect(refused.body.error).toEqual({
    code: "unsupported_media_type",
    message: "unsupported file type: application/x-cfb (legacy or password-protected Office document)",
  });
  const docs = await waitFor("the documents to settle", async () => {
    const all = (await t.call("GET", `/api/kb/${kbId}`, { cookie })).body.documents as {
      fileName: string;
      status: string;
      error: string | null;
    }[];
    return all.every((d) => d.status === "ready" || d.status === "failed") ? all : null;
  });
  expect(docs.map((d) => [d.fileName, d.status, d.error]).sort()).toEqual([
    ["memo.rtf", "ready", null],
    ["rota.ods", "ready", null],
    ["talk.odp", "ready", null],
  ]);
  const search = async (query: string) =>
    (await t.call("POST", `/api/kb/${kbId}/search`, { cookie, body: { query, topK: 1 } })).body.results[0].content;
  expect(await search("who is the barista on monday")).toBe("# Rota\n\nDay: Monday; Barista: Quentin Marlowe");
  expect(await search("lighthouse keeping")).toBe("# Slide 1: Welcome\n\nLighthouse keeping 101\n\nNotes: Smile");
  expect(await search("when do harbour permits renew")).toBe("Harbour permits renew in March.");
});
