/**
 * What belongs to the process, through the compiled `dist/ragd`: one server per
 * data directory, a closed stderr, clients that hang up mid-upload, and the CLI
 * refusing a data directory that holds no ragd data.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { connect } from "node:net";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "../src/log";
import { tempDir } from "./support/app";
import { BINARY, ensureBinary, runCli, startBinary, type RunningBinary } from "./support/binary";
import { waitFor } from "./support/wait";

const dirs: string[] = [];
const procs: RunningBinary[] = [];

function dir(prefix: string): string {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
}

async function start(dataDir: string): Promise<RunningBinary> {
  const s = await startBinary(dataDir);
  procs.push(s);
  return s;
}

beforeAll(async () => {
  await ensureBinary();
}, 120_000);

afterAll(() => {
  for (const p of procs) p.proc.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs the binary with `args`; kills it if it is still running after `ms`. */
async function runFor(args: string[], ms: number) {
  const p = Bun.spawn([BINARY, ...args], {
    cwd: dir("ragd-cwd-"),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => p.kill("SIGKILL"), ms);
  const code = await p.exited;
  clearTimeout(timer);
  return { code, stderr: await new Response(p.stderr).text() };
}

/** Signs up, creates a pipeline and a file source declaring `fileSize` bytes. */
async function fileSource(s: RunningBinary, fileSize: number) {
  const jar: { cookie?: string } = {};
  await s.http("/api/auth/signup", { method: "POST", json: { email: "o@example.com", password: "password123" }, jar });
  const p = await s.http("/api/rag/pipelines", { method: "POST", json: { name: "P" }, jar });
  const src = await s.http(`/api/rag/pipelines/${p.body.id}/sources`, {
    method: "POST",
    json: { type: "file", fileName: "big.txt", fileSize },
    jar,
  });
  expect(src.status).toBe(201);
  return {
    jar,
    pipelineId: p.body.id as string,
    sourceId: src.body.id as string,
    uploadUrl: src.body.uploadUrl as string,
  };
}

/**
 * Sends the head of a request declaring `length` bytes of body, then `body` (less than
 * that), then hangs up while the server is still reading.
 */
async function abortedRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  length: number,
  body: Uint8Array,
): Promise<void> {
  const u = new URL(url);
  const sock = connect(Number(u.port), u.hostname);
  await new Promise<void>((resolve, reject) => sock.once("connect", resolve).once("error", reject));
  const lines = Object.entries({ host: u.host, ...headers, "content-length": String(length) }).map(
    ([k, v]) => `${k}: ${v}\r\n`,
  );
  sock.write(`${method} ${u.pathname}${u.search} HTTP/1.1\r\n${lines.join("")}\r\n`);
  sock.write(body);
  await Bun.sleep(300); // the server is now reading the body
  sock.destroy();
}

/** The log lines of a server, parsed. */
const logLines = (s: RunningBinary) =>
  s
    .logs()
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

/** Every `ragd_http_requests_total` series with its count. */
function requestSeries(metrics: string): { labels: string; status: number; count: number }[] {
  return [...metrics.matchAll(/^ragd_http_requests_total\{(.*status="(\d+)".*)\} (\d+)$/gm)].map((m) => ({
    labels: m[1]!,
    status: Number(m[2]),
    count: Number(m[3]),
  }));
}

describe("a client that hangs up mid-upload", () => {
  test("is logged at info, counted as 499 and not as a 5xx; the source can still be uploaded", async () => {
    const dataDir = dir("ragd-abort-");
    const s = await start(dataDir);
    const { jar, pipelineId, sourceId, uploadUrl } = await fileSource(s, 4_000_000);
    await abortedRequest(uploadUrl, "PUT", { "content-type": "text/plain" }, 4_000_000, Buffer.alloc(64 * 1024, "a"));
    await waitFor("the upload's log line", () => /"route":"\/uploads\/:sourceId"/.test(s.logs()), 5000);
    const series = requestSeries(String((await s.http("/metrics")).body)).filter((x) =>
      x.labels.includes('route="/uploads/:sourceId"'),
    );
    expect(series).toEqual([expect.objectContaining({ status: 499, count: 1 })]);
    const lines = logLines(s);
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
    expect(lines.find((l) => l.route === "/uploads/:sourceId")).toMatchObject({ level: "info", status: 499 });
    // Nothing was kept (no half-written file): the source still awaits its file and the same URL takes it.
    expect(readdirSync(join(dataDir, "files", ".tmp"))).toEqual([]);
    const src = await s.http(`/api/rag/pipelines/${pipelineId}/sources`, { jar });
    expect(src.body.find((x: { id: string }) => x.id === sourceId).status).toBe("awaiting_upload");
    const again = await fetch(uploadUrl, { method: "PUT", body: "hello world" });
    expect(again.status).toBe(200);
  }, 60_000);

  test("a dropped knowledge-base upload (multipart) is a 499 too, and leaves no file behind", async () => {
    const dataDir = dir("ragd-abort-kb-");
    const s = await start(dataDir);
    const jar: { cookie?: string } = {};
    await s.http("/api/auth/signup", {
      method: "POST",
      json: { email: "k@example.com", password: "password123" },
      jar,
    });
    const kb = await s.http("/api/kb", { method: "POST", json: { name: "KB" }, jar });
    const head = Buffer.from(
      '--B\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n',
    );
    await abortedRequest(
      `${s.url}/api/kb/${kb.body.id}/upload`,
      "POST",
      { cookie: jar.cookie!, "content-type": "multipart/form-data; boundary=B" },
      4_000_000,
      Buffer.concat([head, Buffer.alloc(64 * 1024, "a")]),
    );
    await waitFor("the upload's log line", () => /"route":"\/api\/kb\/:id\/upload"/.test(s.logs()), 5000);
    expect(logLines(s).filter((l) => l.level === "error")).toEqual([]);
    expect(logLines(s).find((l) => l.route === "/api/kb/:id/upload")).toMatchObject({ level: "info", status: 499 });
    // The half-received file is removed at once, not at the next start.
    await waitFor("an empty files/.tmp", () => readdirSync(join(dataDir, "files", ".tmp")).length === 0, 5000);
    expect((await s.http(`/api/kb/${kb.body.id}`, { jar })).body.documentCount).toBe(0);
  }, 60_000);
});

describe("a closed stderr", () => {
  test("a log write that throws is swallowed", () => {
    let calls = 0;
    const log = createLogger("info", () => {
      calls++;
      throw Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
    });
    expect(() => log.error("x", { n: 1 })).not.toThrow();
    expect(() => log.info("y")).not.toThrow();
    expect(calls).toBe(2);
  });

  test("does not stop the server: it keeps answering after its log lines fail", async () => {
    const dataDir = dir("ragd-stderr-");
    const child = spawn(BINARY, ["serve", "--port", "0", "--data-dir", dataDir], {
      cwd: dir("ragd-cwd-"),
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      // Read the first line (it names the port), then close our end of the pipe, as `| head -1` does.
      const first = await new Promise<string>((resolve, reject) => {
        let text = "";
        child.stderr!.on("data", (c: Buffer) => {
          text += c.toString();
          if (text.includes("\n")) resolve(text.split("\n")[0]!);
        });
        child.once("exit", () => reject(new Error(`exited before logging: ${text}`)));
      });
      child.stderr!.destroy();
      const port = Number(/"port":(\d+)/.exec(first)![1]);
      // Every request logs a line; a failed sign-in logs too.
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "nobody@example.com", password: "wrong password" }),
        });
        expect(res.status).toBe(401);
        await Bun.sleep(50);
      }
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
  }, 60_000);
});

describe("one server per data directory", () => {
  test("a second server exits 2 naming the first; after kill -9 of the first a new one starts", async () => {
    const dataDir = dir("ragd-lock-");
    const first = await start(dataDir);
    const second = await runFor(["serve", "--port", "0", "--data-dir", dataDir], 15_000);
    expect(second.code).toBe(2);
    expect(second.stderr.trim().split("\n")).toHaveLength(1);
    expect(second.stderr).toStartWith("ragd: ");
    expect(second.stderr).toContain(`ragd process ${first.proc.pid}`);
    expect(second.stderr).toContain("--data-dir");
    // The refused server touched nothing: the first still answers and writes.
    const signup = await first.http("/api/auth/signup", {
      method: "POST",
      json: { email: "first@example.com", password: "password123" },
    });
    expect(signup.status).toBe(201);

    first.proc.kill("SIGKILL");
    await first.proc.exited;
    const next = await start(dataDir);
    expect((await next.http("/healthz")).status).toBe(200);
    const login = await next.http("/api/auth/login", {
      method: "POST",
      json: { email: "first@example.com", password: "password123" },
    });
    expect(login.status).toBe(200);
  }, 60_000);

  test("`ragd user create` and `set-tier` work while a server holds the directory and writes", async () => {
    const dataDir = dir("ragd-lock-cli-");
    const s = await start(dataDir);
    // The server writes (sign-ups) while the CLI writes: SQLite's busy timeout lets both through.
    const signups = Array.from({ length: 20 }, (_, i) =>
      s.http("/api/auth/signup", { method: "POST", json: { email: `w${i}@example.com`, password: "password123" } }),
    );
    const cli = (args: string[]) => runFor(["user", ...args, "--data-dir", dataDir], 30_000);
    const created = await cli(["create", "--email", "cli@example.com", "--password", "password123"]);
    const tier = await cli(["set-tier", "--email", "cli@example.com", "--tier", "pro"]);
    expect(created).toEqual({ code: 0, stderr: "" });
    expect(tier).toEqual({ code: 0, stderr: "" });
    expect((await Promise.all(signups)).map((r) => r.status)).toEqual(Array(20).fill(201));
    const jar: { cookie?: string } = {};
    const login = await s.http("/api/auth/login", {
      method: "POST",
      json: { email: "cli@example.com", password: "password123" },
      jar,
    });
    expect(login.status).toBe(200);
    expect((await s.http("/api/auth/me", { jar })).body.user.tier).toBe("pro");
  }, 60_000);
});

describe("the user commands on a directory without ragd data", () => {
  const create = (dataDir: string, ...more: string[]) =>
    runCli(["user", "create", "--email", "a@example.com", "--password", "password123", "--data-dir", dataDir, ...more]);

  test.each([
    ["a missing directory", () => join(dir("ragd-typo-"), "typo")],
    ["an empty directory", () => dir("ragd-empty-")],
  ])("%s is refused with exit 2, naming --init, and nothing is created", (_name, where) => {
    const dataDir = where();
    for (const r of [
      create(dataDir),
      runCli(["user", "set-tier", "--email", "a@example.com", "--tier", "pro", "--data-dir", dataDir]),
    ]) {
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toStartWith(`ragd: no ragd data in ${dataDir}`);
      expect(existsSync(join(dataDir, "ragd.db"))).toBe(false);
    }
    expect(create(dataDir).stderr).toContain("--init");
  });

  test("--init starts a new data directory that a server then uses", async () => {
    const dataDir = join(dir("ragd-init-"), "new");
    expect(create(dataDir, "--init")).toMatchObject({ code: 0, stderr: "" });
    expect(create(dataDir).code).toBe(1); // the same email again: the database is there now
    expect(runCli(["user", "set-tier", "--email", "a@example.com", "--tier", "pro", "--data-dir", dataDir]).code).toBe(
      0,
    );
    expect(
      runCli(["user", "set-tier", "--email", "a@example.com", "--tier", "pro", "--data-dir", dataDir, "--init"]).code,
    ).toBe(2);
    const s = await start(dataDir);
    const login = await s.http("/api/auth/login", {
      method: "POST",
      json: { email: "a@example.com", password: "password123" },
    });
    expect(login.status).toBe(200);
  }, 60_000);
});
