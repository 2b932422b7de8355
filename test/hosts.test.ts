/**
 * The DNS-rebinding defence: ragd answers only for the host names it serves, on every
 * route, and 421 misdirected_request for any other Host. In-process through app.handle,
 * and through the compiled binary with raw HTTP requests (fetch cannot set Host).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { request } from "node:http";
import { loadConfig } from "../src/config";
import { hostAllowed, servedHosts, servesOnlyLoopback } from "../src/http/hosts";
import { makeApp, tempDir, type TestApp } from "./support/app";
import { ensureBinary, type RunningBinary, startBinary } from "./support/binary";
import { waitFor } from "./support/wait";

const ROUTES: [string, string][] = [
  ["GET", "/"],
  ["GET", "/docs"],
  ["GET", "/docs/openapi.json"],
  ["GET", "/healthz"],
  ["GET", "/readyz"],
  ["GET", "/metrics"],
  ["GET", "/api/auth/me"],
  ["POST", "/api/auth/signup"],
  ["POST", "/api/rag/query"],
  ["GET", "/no/such/route"],
];

describe("which Host values are served", () => {
  const served = servedHosts({ host: "127.0.0.1", publicUrl: "https://rag.example.com", allowedHosts: [".corp"] });
  const cases: [string, boolean][] = [
    ["localhost", true],
    ["localhost:8484", true],
    ["LOCALHOST.", true],
    ["app.localhost:3000", true],
    ["127.0.0.1:8484", true],
    ["127.8.9.10", true],
    ["[::1]:8484", true],
    ["rag.example.com", true],
    ["RAG.example.com:443", true],
    ["wiki.corp", true],
    ["corp", true],
    ["attacker.test:8484", false],
    ["localhost.attacker.test", false],
    ["127.0.0.1.nip.io", false],
    ["example.com", false],
    ["evil-rag.example.com", false],
    ["10.0.0.5:8484", false],
    ["[::2]", false],
    ["", false],
    ["a b", false],
  ];
  test.each(cases)("Host %p → served %p", (host, ok) => {
    expect(hostAllowed(host, served)).toBe(ok);
  });

  test.each([
    [{ host: "127.0.0.1", publicUrl: null, allowedHosts: [] }, ["127.0.0.1"], false],
    [{ host: "0.0.0.0", publicUrl: null, allowedHosts: [] }, [], true],
    [{ host: "::", publicUrl: null, allowedHosts: [] }, [], true],
    [{ host: "0.0.0.0", publicUrl: null, allowedHosts: ["rag.lan"] }, ["rag.lan"], false],
    [{ host: "0.0.0.0", publicUrl: "http://rag.lan:8484", allowedHosts: [] }, ["rag.lan"], false],
    [{ host: "192.168.1.10", publicUrl: null, allowedHosts: [] }, ["192.168.1.10"], false],
  ] as const)("bound to %o, serves %p; warns %p", (config, served, warns) => {
    const c = { ...config, allowedHosts: [...config.allowedHosts] };
    expect(servedHosts(c)).toEqual([...served]);
    expect(servesOnlyLoopback(c)).toBe(warns);
  });

  test("RAGD_ALLOWED_HOSTS is a comma-separated list of names", () => {
    const { config } = loadConfig({}, { RAGD_ALLOWED_HOSTS: "rag.lan, *.corp ,10.0.0.5" });
    expect(config.allowedHosts).toEqual(["rag.lan", "*.corp", "10.0.0.5"]);
    expect(() => loadConfig({}, { RAGD_ALLOWED_HOSTS: "http://rag.lan" })).toThrow(/RAGD_ALLOWED_HOSTS/);
    expect(() => loadConfig({}, { RAGD_ALLOWED_HOSTS: "rag.lan:8484" })).toThrow(/without scheme or port/);
  });
});

describe("through app.handle", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await makeApp({ allowedHosts: ["rag.lan"] });
  });
  afterAll(() => app.close());

  test.each(ROUTES)("%s %s with a foreign Host is 421", async (method, path) => {
    const r = await app.call(method, path, {
      headers: { host: "attacker.test:8484", origin: "http://attacker.test:8484" },
      body: method === "POST" ? { email: "r@example.com", password: "rebind pw 1" } : undefined,
    });
    expect(r.status).toBe(421);
    expect(r.body.error.code).toBe("misdirected_request");
    expect(r.body.error.message).toContain("attacker.test");
  });

  test.each(["localhost:8484", "127.0.0.1", "rag.lan"])("Host %s is served", async (host) => {
    const r = await app.call("GET", "/healthz", { headers: { host } });
    expect(r.status).toBe(200);
  });

  test("nothing is created for a refused host", async () => {
    const creds = { email: "rebind@example.com", password: "rebind pw 1" };
    const r = await app.call("POST", "/api/auth/signup", { headers: { host: "attacker.test" }, body: creds });
    expect(r.status).toBe(421);
    const login = await app.call("POST", "/api/auth/login", { body: creds });
    expect(login.status).toBe(401);
  });
});

/** Sends one request with an arbitrary Host header over a real socket. */
function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers, setHost: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("through the binary", () => {
  let bin: RunningBinary;
  beforeAll(async () => {
    await ensureBinary();
    bin = await startBinary(tempDir(), { RAGD_LOG: "info" });
  });
  afterAll(() => bin?.proc.kill());

  test("the rebinding reproduction: signup with a foreign Host and a matching Origin is 421", async () => {
    const body = JSON.stringify({ email: "r@example.com", password: "rebind pw 1" });
    const r = await rawRequest(
      bin.port,
      "POST",
      "/api/auth/signup",
      {
        host: `attacker.test:${bin.port}`,
        origin: `http://attacker.test:${bin.port}`,
        "content-type": "application/json",
        "content-length": String(body.length),
      },
      body,
    );
    expect(r.status).toBe(421);
    expect(JSON.parse(r.body).error.code).toBe("misdirected_request");
  });

  test.each(ROUTES.filter(([m]) => m === "GET"))("%s %s with a foreign Host is 421", async (method, path) => {
    const r = await rawRequest(bin.port, method, path, { host: "attacker.test" });
    expect(r.status).toBe(421);
    expect(JSON.parse(r.body).error.code).toBe("misdirected_request");
  });

  test.each(["localhost", "127.0.0.1:1234", "[::1]", "ragd.localhost"])("Host %s is served", async (host) => {
    const r = await rawRequest(bin.port, "GET", "/healthz", { host });
    expect(r.status).toBe(200);
  });

  test("an HTTP/1.0 request without Host is 421", async () => {
    const { connect } = await import("node:net");
    const reply = await new Promise<string>((resolve, reject) => {
      let out = "";
      const socket = connect(bin.port, "127.0.0.1", () => socket.write("GET /healthz HTTP/1.0\r\n\r\n"));
      socket.on("data", (d) => (out += d));
      socket.on("end", () => resolve(out));
      socket.on("error", reject);
    });
    expect(reply).toStartWith("HTTP/1.1 421");
    expect(reply).toContain('"code":"misdirected_request"');
  });

  test("binding 127.0.0.1 logs no host warning", () => {
    expect(bin.logs()).not.toContain("only loopback host names are served");
  });
});

describe("binding every interface", () => {
  test("without a public URL or allowed hosts, the start-up log says what to set", async () => {
    await ensureBinary();
    const bin = await startBinary(tempDir(), { RAGD_HOST: "0.0.0.0" });
    try {
      const warning = /only loopback host names are served.*RAGD_PUBLIC_URL or RAGD_ALLOWED_HOSTS/;
      await waitFor("the start-up warning", () => warning.test(bin.logs()), 5_000, 20);
      expect(bin.logs()).toMatch(warning);
      expect((await rawRequest(bin.port, "GET", "/healthz", { host: "localhost" })).status).toBe(200);
      expect((await rawRequest(bin.port, "GET", "/healthz", { host: "rag.lan" })).status).toBe(421);
    } finally {
      bin.proc.kill();
    }
  });

  test("with RAGD_ALLOWED_HOSTS the name is served and there is no warning", async () => {
    const bin = await startBinary(tempDir(), { RAGD_HOST: "0.0.0.0", RAGD_ALLOWED_HOSTS: "rag.lan" });
    try {
      expect((await rawRequest(bin.port, "GET", "/healthz", { host: "rag.lan:80" })).status).toBe(200);
      expect((await rawRequest(bin.port, "GET", "/healthz", { host: "other.lan" })).status).toBe(421);
      expect(bin.logs()).not.toContain("only loopback host names are served");
    } finally {
      bin.proc.kill();
    }
  });
});
