/**
 * The compiled binary at a terminal (a pseudo-terminal made by util-linux's `script`):
 * `ragd serve` prints one line for the person beside its JSON log, saying where the
 * dashboard and the data are and, on a new install, who becomes the administrator. The
 * MCP command route names the executable itself, so that the dashboard's snippet starts it
 * wherever it is. Skipped where `script` is missing.
 */
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./support/app";
import { BINARY, ensureBinary, signUp, startBinary, type RunningBinary } from "./support/binary";
import { waitFor } from "./support/wait";

const SCRIPT = ["/usr/bin/script", "/bin/script"].find((p) => existsSync(p));
const started: { proc: Bun.Subprocess; dataDir: string }[] = [];
let plain: RunningBinary | null = null;

afterEach(async () => {
  for (const s of started.splice(0)) await stopAtTerminal(s.proc, s.dataDir);
  plain?.proc.kill("SIGTERM");
  await plain?.proc.exited;
  plain = null;
});

/** Starts `ragd serve` on a pseudo-terminal; resolves with what the terminal showed once the person's line is there. */
async function serveAtTerminal(dataDir: string): Promise<{ shown: string; port: number }> {
  const command = `exec ${BINARY} serve --port 0 --data-dir ${dataDir}`;
  const proc = Bun.spawn([SCRIPT!, "-qfec", command, "/dev/null"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  started.push({ proc, dataDir });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let shown = "";
  const deadline = Date.now() + 30_000;
  // Both lines: the log's lines of a turn are written at its end, so either may come first.
  while (!/ragd is running: .*\r?\n/.test(shown) || !/"msg":"listening".*?"port":\d+/.test(shown)) {
    const left = deadline - Date.now();
    const read = await Promise.race([reader.read(), Bun.sleep(Math.max(0, left)).then(() => null)]);
    if (!read) throw new Error(`no line for the terminal in 30 s:\n${shown}`);
    const { done, value } = read;
    if (done) throw new Error(`the terminal closed:\n${shown}`);
    shown += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  const port = Number(/"msg":"listening".*?"port":(\d+)/.exec(shown)?.[1]);
  return { shown, port };
}

/** Ends the server (its pid is in the data directory's control file), then the terminal. */
async function stopAtTerminal(proc: Bun.Subprocess, dataDir: string): Promise<void> {
  try {
    const { pid } = JSON.parse(readFileSync(join(dataDir, "server.json"), "utf8")) as { pid: number };
    process.kill(pid, "SIGTERM");
  } catch {
    // Not started, or already stopped.
  }
  await Promise.race([proc.exited, Bun.sleep(10_000)]);
  proc.kill("SIGKILL");
}

test.skipIf(!SCRIPT)(
  "at a terminal: the dashboard, the data directory and the first account's role; after sign-up, without it",
  async () => {
    await ensureBinary();
    const dataDir = tempDir();
    const first = await serveAtTerminal(dataDir);
    const line = /ragd is running: .*/.exec(first.shown)![0].trim();
    expect(line).toBe(
      `ragd is running: open http://127.0.0.1:${first.port}/ in a browser; data in ${dataDir}. ` +
        "No account yet: the first account created (Create an account) becomes the administrator.",
    );
    // Beside the JSON log, not instead of it.
    expect(first.shown).toContain('"msg":"listening"');
    const url = `http://127.0.0.1:${first.port}`;
    const signup = await fetch(`${url}/api/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "first@example.com", password: "correct horse battery" }),
    });
    expect(signup.status).toBe(201);
    expect((await signup.json()).user.isAdmin).toBe(true);
    for (const s of started.splice(0)) await stopAtTerminal(s.proc, s.dataDir);
    await waitFor("the control file removed", async () => !existsSync(join(dataDir, "server.json")));
    const again = await serveAtTerminal(dataDir);
    expect(/ragd is running: .*/.exec(again.shown)![0].trim()).toBe(
      `ragd is running: open http://127.0.0.1:${again.port}/ in a browser; data in ${dataDir}.`,
    );
  },
  90_000,
);

test("not at a terminal: the JSON log alone; the MCP command names the executable", async () => {
  await ensureBinary();
  plain = await startBinary(tempDir());
  const jar = {};
  expect(await signUp(plain, "mcp@example.com", jar)).toBe(201);
  const r = await plain.http("/api/mcp/command", { jar });
  expect(r.status).toBe(200);
  expect(realpathSync(r.body.command)).toBe(realpathSync(BINARY));
  plain.proc.kill("SIGTERM");
  await plain.proc.exited;
  const stdout = await new Response(plain.proc.stdout).text();
  expect(stdout).not.toContain("ragd is running");
}, 60_000);
