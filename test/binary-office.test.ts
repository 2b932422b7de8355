/**
 * Office files through the compiled binary and its ingestion worker: SheetJS, the XML
 * reader and the RTF reader must be bundled and work there, not only under `bun test`
 * (docs/API.md, "What text is indexed"). Upload → ready → a query finds a cell's text;
 * a bomb named .xlsx fails with the zip guard's sentence.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { tempDir } from "./support/app";
import { ensureBinary, type RunningBinary, startBinary } from "./support/binary";
import { waitFor } from "./support/ingest";
import { makeEpub, makePptx, makeWorkbook } from "./support/office";

let server: RunningBinary;
const jar: { cookie?: string } = {};

beforeAll(async () => {
  await ensureBinary();
  server = await startBinary(tempDir());
  const signup = await server.http("/api/auth/signup", {
    method: "POST",
    json: { email: "office@example.com", password: "correct horse battery" },
    jar,
  });
  expect(signup.status).toBe(201);
}, 120_000);

afterAll(() => {
  server?.proc.kill("SIGKILL");
});

/** Creates a file source and PUTs the bytes to its signed upload URL. */
async function upload(pid: string, fileName: string, bytes: Uint8Array): Promise<void> {
  const created = await server.http(`/api/rag/pipelines/${pid}/sources`, {
    method: "POST",
    json: { type: "file", fileName, fileSize: bytes.byteLength },
    jar,
  });
  expect(created.status).toBe(201);
  const put = await fetch(created.body.uploadUrl, { method: "PUT", body: bytes as Uint8Array<ArrayBuffer> });
  expect(put.status).toBeLessThan(300);
}

/** A zip that declares a 150 MB entry: refused from its directory, before anything inflates. */
function bomb(): Uint8Array {
  const zip = makeWorkbook({ S: [["a", "b"]] }, "xlsx");
  const name = Buffer.from("xl/worksheets/sheet1.xml");
  const at = Buffer.from(zip).lastIndexOf(name) - 46;
  new DataView(zip.buffer, zip.byteOffset).setUint32(at + 24, 150 * 2 ** 20, true);
  return zip;
}

test("xlsx, pptx, epub and rtf uploads end ready and are found by a query; a bomb fails", async () => {
  const pid = (await server.http("/api/rag/pipelines", { method: "POST", json: { name: "office" }, jar })).body.id;
  const files: [string, Uint8Array][] = [
    [
      "inventory.xlsx",
      makeWorkbook(
        {
          Stock: [
            ["Part", "Bin"],
            ["Flux capacitor", "B-17"],
          ],
        },
        "xlsx",
      ),
    ],
    ["deck.pptx", await makePptx([{ title: "Roadmap", body: ["Ship the gyroscope"], notes: "Ask about budget" }])],
    ["book.epub", await makeEpub("Log", [{ file: "c1.xhtml", title: "Day One", paragraphs: ["Sighted a whale."] }], 3)],
    ["memo.rtf", new TextEncoder().encode("{\\rtf1\\ansi{\\fonttbl{\\f0 Arial;}}\\f0 Caf\\'e9 meeting at noon\\par}")],
    ["bomb.xlsx", bomb()],
  ];
  for (const [name, bytes] of files) await upload(pid, name, bytes);
  const sources = await waitFor("every source to settle", async () => {
    const all = (await server.http(`/api/rag/pipelines/${pid}/sources`, { jar })).body as {
      fileName: string;
      status: string;
      error: string | null;
    }[];
    return all.every((s) => s.status === "ready" || s.status === "failed") ? all : null;
  });
  expect(sources.map((s) => [s.fileName, s.status, s.error]).sort()).toEqual([
    ["bomb.xlsx", "failed", "zip archive refused: entry xl/worksheets/sheet1.xml expands to 150.0 MB (limit 100.0 MB)"],
    ["book.epub", "ready", null],
    ["deck.pptx", "ready", null],
    ["inventory.xlsx", "ready", null],
    ["memo.rtf", "ready", null],
  ]);
  const key = (await server.http(`/api/rag/pipelines/${pid}/keys`, { method: "POST", json: { name: "k" }, jar })).body
    .key;
  const contents = async (query: string) => {
    const r = await server.http("/api/rag/query", {
      method: "POST",
      json: { query, mode: "keyword", topK: 3 },
      headers: { authorization: `Bearer ${key}` },
    });
    expect(r.status).toBe(200);
    return r.body.results.map((x: { content: string }) => x.content);
  };
  expect(await contents("flux capacitor")).toEqual(["# Stock\n\nPart: Flux capacitor; Bin: B-17"]);
  expect(await contents("gyroscope")).toEqual(["# Slide 1: Roadmap\n\nShip the gyroscope\n\nNotes: Ask about budget"]);
  expect(await contents("whale")).toEqual(["# Day One\n\nSighted a whale."]);
  expect(await contents("café")).toEqual(["Café meeting at noon"]);
}, 60_000);
