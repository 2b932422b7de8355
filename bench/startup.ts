/**
 * Platform figures for the compiled binary: its size, the time from process
 * start to the first 200 on /healthz (median of 10 fresh starts), and the idle
 * resident memory a few seconds after start.
 *
 *   bun bench/startup.ts            (builds dist/ragd first if it is missing)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const binary = join(root, "dist", "ragd");
if (!existsSync(binary))
  Bun.spawnSync(["bun", join(root, "scripts", "build.ts")], { stdout: "inherit", stderr: "inherit" });

const RUNS = Number(process.argv[2] ?? 10);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const port = 28000 + Math.floor(Math.random() * 1000);

/** Starts the binary on a fresh data dir and measures ms until /healthz answers 200. */
async function timeToHealthy(dataDir: string): Promise<{ ms: number; proc: Bun.Subprocess }> {
  const t0 = performance.now();
  const proc = Bun.spawn([binary, "serve", "--port", String(port), "--data-dir", dataDir], {
    stdout: "ignore",
    stderr: "ignore",
    cwd: dataDir,
  });
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (r.status === 200) return { ms: performance.now() - t0, proc };
    } catch {}
    await Bun.sleep(2);
    if (performance.now() - t0 > 20_000) throw new Error("no /healthz within 20 s");
  }
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

const fresh: number[] = [];
const warm: number[] = [];
let idleRss = 0;
for (let i = 0; i < RUNS; i++) {
  const dir = mkdtempSync(join(tmpdir(), "ragd-bench-"));
  const first = await timeToHealthy(dir);
  fresh.push(first.ms);
  if (i === 0) {
    await Bun.sleep(3000);
    idleRss = rssMb(first.proc.pid);
  }
  first.proc.kill("SIGTERM");
  await first.proc.exited;
  const again = await timeToHealthy(dir); // existing data dir: migrations already applied
  warm.push(again.ms);
  again.proc.kill("SIGTERM");
  await again.proc.exited;
  rmSync(dir, { recursive: true, force: true });
}

console.log(`binary size                 ${(statSync(binary).size / 1024 / 1024).toFixed(1)} MB`);
console.log(
  `start → first 200 /healthz  median ${median(fresh).toFixed(0)} ms on a new data dir, ${median(warm).toFixed(0)} ms on an existing one (${RUNS} runs each; target ≤ 500 ms)`,
);
console.log(`idle RSS after start        ${idleRss.toFixed(0)} MB (target ≤ 150 MB)`);
