/**
 * Runs the compiled `dist/ragd` as a real process from a directory with nothing
 * else in it, and talks to it over loopback HTTP.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./app";

export const BINARY = join(import.meta.dir, "..", "..", "dist", "ragd");

/** Builds the binary if it is not there yet (npm test builds it first). */
export async function ensureBinary(): Promise<string> {
  if (!existsSync(BINARY)) {
    const p = Bun.spawnSync(["bun", join(import.meta.dir, "..", "..", "scripts", "build.ts"), "--quick"], {
      stdout: "inherit",
      stderr: "inherit",
    });
    if (p.exitCode !== 0) throw new Error("building dist/ragd failed");
  }
  return BINARY;
}

export interface RunningBinary {
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  port: number;
  url: string;
  logs: () => string;
  /** fetch against the server, keeping the session cookie of `jar`. */
  http(
    path: string,
    init?: RequestInit & { json?: unknown; jar?: { cookie?: string } },
  ): Promise<{ status: number; body: any; headers: Headers }>;
}

/** Signs `email` up on the server (password "correct horse battery"), keeping the session in `jar`; the reply's status. */
export async function signUp(server: RunningBinary, email: string, jar: { cookie?: string }): Promise<number> {
  const r = await server.http("/api/auth/signup", {
    method: "POST",
    json: { email, password: "correct horse battery" },
    jar,
  });
  return r.status;
}

/** Starts `ragd serve --port 0` and waits (up to `timeoutMs`) for its "listening" log line. */
export async function startBinary(
  dataDir: string,
  env: Record<string, string> = {},
  cwd = tempDir("ragd-cwd-"),
  timeoutMs = 20_000,
): Promise<RunningBinary> {
  const proc = Bun.spawn([BINARY, "serve", "--port", "0", "--data-dir", dataDir], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let log = "";
  const reader = proc.stderr.getReader();
  const decoder = new TextDecoder();
  const port = await new Promise<number>((resolve, reject) => {
    // A server that never said it listens is ended, not left running beside the caller.
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`no listening line in ${timeoutMs / 1000} s:\n${log}`));
    }, timeoutMs);
    void (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return reject(new Error(`ragd exited before listening:\n${log}`));
        log += decoder.decode(value, { stream: true });
        const m = /"msg":"listening".*?"port":(\d+)/.exec(log);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
          // keep draining stderr so the process never blocks on a full pipe
          void (async () => {
            for (;;) {
              const r = await reader.read().catch(() => ({ done: true, value: undefined }));
              if (r.done) break;
              log += decoder.decode(r.value, { stream: true });
            }
          })();
          return;
        }
      }
    })();
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    proc,
    port,
    url,
    logs: () => log,
    async http(path, init = {}) {
      const headers = new Headers(init.headers);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set("content-type", "application/json");
        body = JSON.stringify(init.json);
      }
      if (init.jar?.cookie) headers.set("cookie", init.jar.cookie);
      const res = await fetch(url + path, { ...init, headers, body });
      const set = res.headers.get("set-cookie");
      if (set && init.jar) init.jar.cookie = set.split(";")[0];
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: res.status, body: parsed, headers: res.headers };
    },
  };
}

/** Runs a one-shot CLI command of the binary. */
export function runCli(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawnSync([BINARY, ...args], {
    cwd: tempDir("ragd-cwd-"),
    env: { PATH: process.env.PATH ?? "/usr/bin", ...env },
  });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}
