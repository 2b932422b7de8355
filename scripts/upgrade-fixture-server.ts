/**
 * The ragd 0.1.0 server that scripts/make-upgrade-fixture.ts writes through: started on a
 * fresh data directory with loopback webhooks allowed, a receiver for those webhooks, and
 * HTTP with the session cookie (or a key) kept.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A JSON answer, read by the script as it knows the API (a fixture maker, not a client). */
// biome-ignore lint/suspicious/noExplicitAny: the script reads many answer shapes of the 0.1.0 API
type Reply = any;

export interface OldServer {
  proc: Bun.Subprocess<"ignore", "ignore", "pipe">;
  url: string;
  password: string;
  receiver: ReturnType<typeof Bun.serve>;
  http(
    path: string,
    init?: { method?: string; json?: unknown; key?: string },
  ): Promise<{ status: number; body: Reply }>;
  /** A webhook of `pipeline` to the receiver, for every event; waits for its deliveries to succeed. */
  addWebhook(pipeline: string): Promise<{ id: string; url: string; events: string[] | null }>;
}

/** Starts `<binary> serve` on `dataDir` and waits for its "listening" line. */
export async function startOld(binary: string, dataDir: string): Promise<OldServer> {
  const received: string[] = [];
  const receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (req) => {
      received.push(req.headers.get("x-ragd-delivery") ?? "");
      await req.text();
      return new Response(null, { status: 204 });
    },
  });
  const proc = Bun.spawn([binary, "serve", "--port", "0", "--data-dir", dataDir], {
    cwd: mkdtempSync(join(tmpdir(), "ragd-cwd-")),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", RAGD_FETCH_ALLOW: "127.0.0.1" },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const port = await listeningPort(proc);
  const url = `http://127.0.0.1:${port}`;
  let cookie = "";
  const http: OldServer["http"] = async (path, init = {}) => {
    const headers: Record<string, string> = {};
    if (init.json !== undefined) headers["content-type"] = "application/json";
    if (init.key) headers.authorization = `Bearer ${init.key}`;
    else if (cookie) headers.cookie = cookie;
    const res = await fetch(url + path, {
      method: init.method ?? "GET",
      headers,
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
    const set = res.headers.get("set-cookie");
    if (set && !init.key) cookie = set.split(";")[0]!;
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const addWebhook: OldServer["addWebhook"] = async (pipeline) => {
    const hook = `http://127.0.0.1:${receiver.port}/ragd`;
    const r = await http(`/api/rag/pipelines/${pipeline}/webhooks`, {
      method: "POST",
      json: { url: hook, description: "upgrade fixture" },
    });
    if (r.status !== 201) throw new Error(`webhook: ${JSON.stringify(r.body)}`);
    // Events after it: a new source's queued, processing and ready, delivered to the receiver.
    const json = { type: "text", name: "Canteen", content: "The canteen serves lunch from noon until half past two." };
    await http(`/api/rag/pipelines/${pipeline}/sources`, { method: "POST", json });
    for (let i = 0; i < 200; i++) {
      const d = (await http(`/api/rag/pipelines/${pipeline}/webhooks/${r.body.id}/deliveries`)).body as {
        status: string;
      }[];
      if (d.length > 0 && d.every((x) => x.status === "delivered")) return r.body;
      await Bun.sleep(100);
    }
    throw new Error(`webhook deliveries did not succeed (${received.length} received)`);
  };
  return { proc, url, password: "correct horse battery", receiver, http, addWebhook };
}

/** Reads stderr until the "listening" line; the port. Keeps draining it after. */
async function listeningPort(proc: OldServer["proc"]): Promise<number> {
  const reader = proc.stderr.getReader();
  const decoder = new TextDecoder();
  let log = "";
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`ragd exited before listening:\n${log}`);
    log += decoder.decode(value, { stream: true });
    const m = /"msg":"listening".*?"port":(\d+)/.exec(log);
    if (m) {
      void (async () => {
        while (!(await reader.read().catch(() => ({ done: true }))).done) {}
      })();
      return Number(m[1]);
    }
  }
  throw new Error(`no listening line in 60 s:\n${log}`);
}

/** SIGTERM and wait: the server finishes its work and closes its stores cleanly. */
export async function stopOld(s: OldServer): Promise<void> {
  s.proc.kill("SIGTERM");
  const code = await s.proc.exited;
  if (code !== 0) throw new Error(`ragd 0.1.0 exited with ${code} on SIGTERM`);
}
