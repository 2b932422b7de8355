/**
 * Oversized request heads (docs/API.md, Limits): ragd's own limits through `app.handle`,
 * and the compiled binary, where Bun's cap on the head would otherwise answer first with
 * an empty 431.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_HEADER_BYTES, MAX_URL_BYTES } from "../src/http/request-head";
import { makeApp, tempDir, type TestApp } from "./support/app";
import { ensureBinary, type RunningBinary, startBinary } from "./support/binary";

const URI_TOO_LONG = {
  code: "uri_too_long",
  message: `the URL is longer than ${MAX_URL_BYTES} bytes (path and query string)`,
};
const HEADERS_TOO_LARGE = {
  code: "request_header_fields_too_large",
  message: `the request headers are larger than ${MAX_HEADER_BYTES} bytes`,
};

/** [label, path, extra headers, status, error or null]. "/healthz?x=" is 11 bytes before the padding. */
const CASES: [string, string, Record<string, string>, number, object | null][] = [
  ["a URL of exactly the limit", `/healthz?x=${"a".repeat(MAX_URL_BYTES - 11)}`, {}, 200, null],
  ["a URL one byte over", `/healthz?x=${"a".repeat(MAX_URL_BYTES - 10)}`, {}, 414, URI_TOO_LONG],
  ["a 100 KB query string", `/api/rag/pipelines?x=${"a".repeat(100_000)}`, {}, 414, URI_TOO_LONG],
  ["a 100 KB path", `/api/${"p".repeat(100_000)}`, {}, 414, URI_TOO_LONG],
  ["headers just within", "/healthz", { "x-pad": "h".repeat(MAX_HEADER_BYTES - 2048) }, 200, null],
  ["one 100 KB header", "/api/rag/pipelines", { "x-pad": "h".repeat(100_000) }, 431, HEADERS_TOO_LARGE],
  [
    "many headers adding up",
    "/healthz",
    Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`x-pad-${i}`, "h".repeat(2000)])),
    431,
    HEADERS_TOO_LARGE,
  ],
];

describe("through app.handle", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeApp();
  });
  afterAll(() => t.close());
  for (const [label, path, headers, status, error] of CASES) {
    test(`${label}: ${status}`, async () => {
      const r = await t.call("GET", path, { headers });
      expect(r.status).toBe(status);
      if (error) {
        expect(r.body).toEqual({ error });
        expect(r.headers.get("x-request-id")).toBeTruthy();
      }
    });
  }
});

describe("through the binary", () => {
  let server: RunningBinary;
  beforeAll(async () => {
    await ensureBinary();
    server = await startBinary(tempDir());
  });
  afterAll(() => {
    server?.proc.kill("SIGKILL");
  });
  for (const [label, path, headers, status, error] of CASES) {
    test(`${label}: ${status}${error ? " with the error body" : ""}`, async () => {
      const r = await server.http(path, { headers });
      expect(r.status).toBe(status);
      if (error) {
        expect(r.body).toEqual({ error });
        expect(r.headers.get("content-type")).toBe("application/json");
      }
    });
  }
  test("a head over the server's 1 MiB cap is still refused, and the server keeps answering", async () => {
    const r = await fetch(`${server.url}/healthz?x=${"a".repeat(2 * 1024 * 1024)}`);
    expect(r.status).toBe(431);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
