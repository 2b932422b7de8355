/**
 * Test harness: a real app on a temporary data dir (real SQLite, real LanceDB),
 * driven through `app.handle(new Request(...))` — the same door users knock on.
 */
import { rmSync } from "node:fs";
import { tempDir } from "./temp";
import { buildApp } from "../../src/app";
import { defaultConfig, type Config } from "../../src/config";
import { recordPeer } from "../../src/http/client-address";
import { createLogger } from "../../src/log";
import { closeServices, createServices, type Services } from "../../src/services";
import type { Clock } from "../../src/tools/clock";

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface TestApp {
  services: Services;
  config: Config;
  dataDir: string;
  /** Sends a request; JSON bodies get Content-Type: application/json unless headers say otherwise. */
  call(
    method: string,
    path: string,
    opts?: { body?: unknown; cookie?: string; headers?: Record<string, string>; peer?: string },
  ): Promise<Reply>;
  /** Sends a prepared Request straight to the app (multipart, streams). */
  handle(request: Request): Promise<Response>;
  /** Signs up a user and returns its session cookie ("ragd_session=…"). */
  signup(email?: string, password?: string): Promise<string>;
  close(): Promise<void>;
}

export { tempDir };

let counter = 0;
/** A unique email for each call. */
export const email = (tag = "user") => `${tag}${++counter}-${Date.now()}@example.com`;

/**
 * The in-process servers' password cost: argon2id at 1 MiB and 1 pass, about 1 ms a hash
 * instead of 0.13 s at the default (test/auth.test.ts checks that the default stays).
 */
export const TEST_PASSWORD_COST = { memoryKib: 1024, passes: 1 };

/** `clock`: the time periodic work runs on and records (the system's unless a test steps its own). */
export async function makeApp(overrides: Partial<Config> = {}, clock?: Clock): Promise<TestApp> {
  const dataDir = tempDir();
  const config: Config = {
    ...defaultConfig(),
    dataDir,
    log: "error",
    workers: 1,
    passwordCost: TEST_PASSWORD_COST,
    ...overrides,
  };
  const services = await createServices(
    config,
    createLogger("error", () => {}),
    clock,
  );
  services.baseUrl.value = "http://localhost";
  const app = buildApp(services);
  const call: TestApp["call"] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    let body: BodyInit | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type"))
        headers["content-type"] = "application/json";
    }
    if (opts.cookie) headers.cookie = opts.cookie;
    const request = new Request(`http://localhost${path}`, { method, headers, body });
    // The address the connection came from, as the server would record it.
    recordPeer(request, opts.peer);
    const res = await app.handle(request);
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return {
    services,
    config,
    dataDir,
    call,
    handle: (request) => app.handle(request),
    async signup(e = email(), password = "correct horse battery") {
      const r = await call("POST", "/api/auth/signup", { body: { email: e, password } });
      if (r.status !== 201) throw new Error(`signup failed: ${r.status} ${r.text}`);
      return r.headers.get("set-cookie")!.split(";")[0]!;
    },
    async close() {
      await closeServices(services);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
