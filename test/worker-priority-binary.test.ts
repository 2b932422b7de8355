/**
 * The ingestion workers of the compiled binary run below the main thread's CPU priority
 * (docs/configuration.md: RAGD_WORKER_NICE), read from the kernel's own view of each
 * thread. Linux only: elsewhere the setting does nothing.
 */
import { afterEach, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { getPriority } from "node:os";
import { tempDir } from "./support/app";
import { ensureBinary, type RunningBinary, signUp, startBinary } from "./support/binary";
import { waitFor } from "./support/wait";

const linux = process.platform === "linux";
let bin: RunningBinary | null = null;

afterEach(async () => {
  bin?.proc.kill();
  await bin?.proc.exited;
  bin = null;
});

/** Each live thread of `pid` with its name and nice value (/proc/<pid>/task/<tid>/stat, field 19). */
function threads(pid: number): { tid: number; name: string; nice: number }[] {
  const out: { tid: number; name: string; nice: number }[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
      out.push({
        tid: Number(tid),
        name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")),
        nice: Number(fields[16]),
      });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** The nice values of the worker threads once `want` of them report `nice` (the message is handled once a worker has loaded). */
async function workerNices(pid: number, want: number, nice: number): Promise<number[]> {
  const until = Date.now() + 20_000;
  for (;;) {
    const nices = threads(pid)
      .filter((t) => t.name === "Worker")
      .map((t) => t.nice);
    if (nices.filter((n) => n === nice).length >= want || Date.now() > until) return nices;
    await Bun.sleep(50);
  }
}

/**
 * Four text sources added at once, waited for until ready: the pool gives each job to the
 * least loaded worker, so both workers run jobs.
 */
async function ingestOnBothWorkers(server: RunningBinary): Promise<void> {
  const jar = {};
  expect(await signUp(server, "nice@example.com", jar)).toBe(201);
  const p = await server.http("/api/rag/pipelines", { method: "POST", json: { name: "p" }, jar });
  expect(p.status).toBe(201);
  const added = await Promise.all(
    [0, 1, 2, 3].map((i) =>
      server.http(`/api/rag/pipelines/${p.body.id}/sources`, {
        method: "POST",
        json: { type: "text", name: `t${i}`, content: `Text number ${i} for a worker to read.` },
        jar,
      }),
    ),
  );
  expect(added.map((r) => r.status)).toEqual([201, 201, 201, 201]);
  await waitFor("four sources ready", async () => {
    const r = await server.http(`/api/rag/pipelines/${p.body.id}`, { jar });
    return r.body.status === "ready" && r.body.sourceCount === 4;
  });
}

test.skipIf(!linux)(
  "by default the workers run 10 below the main thread, which keeps its own",
  async () => {
    await ensureBinary();
    bin = await startBinary(tempDir(), { RAGD_WORKERS: "2" });
    // A worker starts with the first job sent to it (pool.ts): jobs for both.
    await ingestOnBothWorkers(bin);
    // The server inherits this process's nice value; its workers go 10 below that.
    const own = getPriority();
    const want = Math.min(19, own + 10);
    const nices = await workerNices(bin.proc.pid, 2, want);
    expect(nices.filter((n) => n === want)).toEqual([want, want]);
    // Besides the two ingestion workers, the database's checkpoint thread (src/db/checkpointer.ts)
    // is a worker too; it keeps the main thread's priority.
    expect(nices.filter((n) => n !== want)).toEqual([own]);
    const main = threads(bin.proc.pid).find((t) => t.tid === bin!.proc.pid)!;
    expect(main.nice).toBe(own);
  },
  60_000,
);

test.skipIf(!linux)(
  "RAGD_WORKER_NICE=0 leaves the workers at the main thread's priority",
  async () => {
    await ensureBinary();
    bin = await startBinary(tempDir(), { RAGD_WORKERS: "2", RAGD_WORKER_NICE: "0" });
    // A priority message, had one been sent, is each worker's first (pool.ts), and a worker
    // reads its messages in order: once the workers have run jobs, it has been handled.
    await ingestOnBothWorkers(bin);
    const own = getPriority();
    // The two ingestion workers and the database's checkpoint thread.
    expect(await workerNices(bin.proc.pid, 3, own)).toEqual([own, own, own]);
  },
  60_000,
);

test("a RAGD_WORKER_NICE outside 0–19 stops the server at start", async () => {
  await ensureBinary();
  // A server that starts anyway is stopped after the test.
  const started = startBinary(tempDir(), { RAGD_WORKER_NICE: "20" }).then((b) => (bin = b));
  await expect(started).rejects.toThrow(/RAGD_WORKER_NICE must be between 0 and 19/);
}, 60_000);
