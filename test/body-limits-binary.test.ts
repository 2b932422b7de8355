/**
 * Oversized bodies through the compiled binary (docs/API.md, Errors): every body
 * reader (JSON, the knowledge-base form, the documents upload) answers 413 with the
 * error body, not a bare 413 from the HTTP layer, whether the size is declared up
 * front or only found while streaming. RAGD_MAX_UPLOAD_MB is 1 to keep it fast.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { connect } from "node:net";
import { tempDir } from "./support/app";
import { ensureBinary, type RunningBinary, startBinary } from "./support/binary";
import { type Tenant, tenant } from "./support/mcp";

const MB = 1024 * 1024;
let dataDir: string;
let server: RunningBinary;
let a: Tenant;
let kbId: string;
/** A key with the ingest scope, for the documents API. */
let ingestKey: string;

beforeAll(async () => {
  await ensureBinary();
  dataDir = tempDir("ragd-body-limits-");
  server = await startBinary(dataDir, { RAGD_MAX_UPLOAD_MB: "1", RAGD_MAX_JSON_BYTES: String(MB) });
  a = await tenant(server, "dora", {});
  const kb = await server.http("/api/kb", { method: "POST", json: { name: "Big files" }, jar: a.jar });
  expect(kb.status).toBe(201);
  kbId = kb.body.id;
  const k = await server.http(`/api/rag/pipelines/${a.pipelineId}/keys`, {
    method: "POST",
    json: { name: "sync", scopes: ["ingest"] },
    jar: a.jar,
  });
  ingestKey = k.body.key;
}, 120_000);

afterAll(() => {
  server?.proc.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * Sends a request head declaring `length` bytes and then only the first `sent` of
 * them, on a raw socket, and returns what the server answered (status and body).
 */
function declared(head: string[], length: number, sent: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1");
    let text = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer; got ${JSON.stringify(text)}`));
    }, 15_000);
    socket.on("connect", () => {
      socket.write([...head, `Content-Length: ${length}`, "Connection: close", "", ""].join("\r\n"));
      socket.write(Buffer.alloc(sent, "a"));
    });
    socket.on("data", (d) => {
      text += d.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      const len = /content-length: (\d+)/i.exec(text.slice(0, end))?.[1];
      if (end >= 0 && len !== undefined && text.length >= end + 4 + Number(len)) {
        clearTimeout(timer);
        socket.destroy();
        resolve({ status: Number(text.slice(9, 12)), body: text.slice(end + 4, end + 4 + Number(len)) });
      }
    });
    // A bare answer (no length) ends with the connection.
    socket.on("close", () => {
      clearTimeout(timer);
      const end = text.indexOf("\r\n\r\n");
      resolve({ status: Number(text.slice(9, 12)), body: end >= 0 ? text.slice(end + 4) : "" });
    });
    socket.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

function expectTooLarge(r: { status: number; body: string }): void {
  expect(r.status).toBe(413);
  const error = JSON.parse(r.body).error;
  expect(error.code).toBe("payload_too_large");
  expect(error.message).toMatch(/larger than \d+ bytes/);
}

/** A body of `total` bytes made while it is sent, never held whole. */
function streamed(prefix: string, total: number): ReadableStream<Uint8Array> {
  let left = total;
  let first = true;
  return new ReadableStream({
    pull(c) {
      if (first) {
        first = false;
        c.enqueue(new TextEncoder().encode(prefix));
        return;
      }
      if (left <= 0) return c.close();
      const n = Math.min(left, 64 * 1024);
      left -= n;
      c.enqueue(new Uint8Array(n).fill(97));
    },
  });
}

describe("a declared length over the limit is 413 with the error body", () => {
  test("JSON body over RAGD_MAX_JSON_BYTES", async () => {
    const head = ["POST /api/rag/query HTTP/1.1", `Host: 127.0.0.1:${server.port}`, `Authorization: Bearer ${a.key}`];
    expectTooLarge(await declared([...head, "Content-Type: application/json"], 5 * MB, 1024));
  });

  test("documents upload over RAGD_MAX_UPLOAD_MB", async () => {
    const head = [
      "PUT /api/rag/documents/big HTTP/1.1",
      `Host: 127.0.0.1:${server.port}`,
      `Authorization: Bearer ${ingestKey}`,
    ];
    expectTooLarge(await declared([...head, "Content-Type: multipart/form-data; boundary=b"], 120 * MB, 1024));
  });

  test("knowledge-base upload over RAGD_MAX_UPLOAD_MB", async () => {
    const head = [`POST /api/kb/${kbId}/upload HTTP/1.1`, `Host: 127.0.0.1:${server.port}`, `Cookie: ${a.jar.cookie}`];
    expectTooLarge(await declared([...head, "Content-Type: multipart/form-data; boundary=b"], 120 * MB, 1024));
  });

  test("signed PUT upload over the size its URL allows", async () => {
    const s = await server.http(`/api/rag/pipelines/${a.pipelineId}/sources`, {
      method: "POST",
      json: { type: "file", name: "big.txt", fileName: "big.txt", fileSize: 100 },
      jar: a.jar,
    });
    expect(s.status).toBe(201);
    const url = new URL(s.body.uploadUrl);
    const head = [`PUT ${url.pathname}${url.search} HTTP/1.1`, `Host: 127.0.0.1:${server.port}`];
    expectTooLarge(await declared([...head, "Content-Type: text/plain"], 120 * MB, 1024));
  });
});

describe("a body streamed without a length stops at the limit with 413 and the error body", () => {
  const form =
    '--b\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n';

  test("knowledge-base upload", async () => {
    const r = await fetch(`${server.url}/api/kb/${kbId}/upload`, {
      method: "POST",
      headers: { cookie: a.jar.cookie!, "content-type": "multipart/form-data; boundary=b" },
      body: streamed(form, 3 * MB),
    });
    expectTooLarge({ status: r.status, body: await r.text() });
    const docs = await server.http(`/api/kb/${kbId}/documents`, { jar: a.jar });
    expect(JSON.stringify(docs.body)).not.toContain("big.txt");
  });

  test("documents upload", async () => {
    const r = await fetch(`${server.url}/api/rag/documents/big`, {
      method: "PUT",
      headers: { authorization: `Bearer ${ingestKey}`, "content-type": "multipart/form-data; boundary=b" },
      body: streamed(form, 3 * MB),
    });
    expectTooLarge({ status: r.status, body: await r.text() });
  });

  test("JSON body", async () => {
    const r = await fetch(`${server.url}/api/rag/query`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.key}`, "content-type": "application/json" },
      body: streamed('{"query":"', 3 * MB),
    });
    expectTooLarge({ status: r.status, body: await r.text() });
  });
});
