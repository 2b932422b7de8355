/**
 * Platform figures for compiled binaries: size and what it is made of
 * (bench/executable-contents.ts), the time from process start to the first 200 on /healthz
 * (median of N fresh starts on a new data directory and N on an existing one), and the idle
 * resident memory a few seconds after start. With several binaries (before and after a
 * change) their starts alternate, so that both meet the same machine.
 *
 * The first start of a binary on a machine writes its LanceDB library (about 155 MB) out of
 * the executable, named by its hash, for later starts: into the private cache directory
 * (src/vectors/native-library.ts), or, for builds before that, the temporary directory,
 * where Bun keeps it. That start is timed apart, with a temporary and a cache directory of
 * its own ("first start"), which the later starts of the same binary share.
 *
 *   bun bench/startup.ts [--runs 10] [binary ...]     (dist/ragd by default; built if missing)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { contentsTable, executableContents } from "./executable-contents";

const root = join(import.meta.dir, "..");
const { values, positionals } = parseArgs({ options: { runs: { type: "string" } }, allowPositionals: true });
const RUNS = Number(values.runs ?? 10);
const binaries = positionals.length ? positionals.map((p) => resolve(p)) : [join(root, "dist", "ragd")];
if (!positionals.length && !existsSync(binaries[0]!))
  Bun.spawnSync(["bun", join(root, "scripts", "build.ts")], { stdout: "inherit", stderr: "inherit" });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const port = 28000 + Math.floor(Math.random() * 1000);

/** Starts `binary` on `dataDir` and measures ms until /healthz answers 200. */
async function timeToHealthy(binary: string, dataDir: string, tmp: string) {
  const t0 = performance.now();
  const proc = Bun.spawn([binary, "serve", "--port", String(port), "--data-dir", dataDir], {
    stdout: "ignore",
    stderr: "ignore",
    cwd: dataDir,
    env: { ...process.env, TMPDIR: tmp, XDG_CACHE_HOME: join(tmp, "cache") },
  });
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (r.status === 200) return { ms: performance.now() - t0, proc };
    } catch {}
    await Bun.sleep(2);
    if (performance.now() - t0 > 30_000) throw new Error("no /healthz within 30 s");
  }
}

async function stop(proc: Bun.Subprocess) {
  proc.kill("SIGTERM");
  await proc.exited;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

interface Figures {
  first: number;
  fresh: number[];
  warm: number[];
  idleRss: number;
  tmp: string;
}
const figures = new Map<string, Figures>();
for (const binary of binaries) {
  const tmp = mkdtempSync(join(tmpdir(), "ragd-bench-tmp-"));
  const dir = mkdtempSync(join(tmpdir(), "ragd-bench-"));
  const first = await timeToHealthy(binary, dir, tmp);
  await stop(first.proc);
  rmSync(dir, { recursive: true, force: true });
  figures.set(binary, { first: first.ms, fresh: [], warm: [], idleRss: 0, tmp });
}
for (let i = 0; i < RUNS; i++) {
  for (const binary of binaries) {
    const f = figures.get(binary)!;
    const dir = mkdtempSync(join(tmpdir(), "ragd-bench-"));
    const fresh = await timeToHealthy(binary, dir, f.tmp);
    f.fresh.push(fresh.ms);
    if (i === 0) {
      await Bun.sleep(3000);
      f.idleRss = rssMb(fresh.proc.pid);
    }
    await stop(fresh.proc);
    const again = await timeToHealthy(binary, dir, f.tmp); // existing data dir: migrations already applied
    f.warm.push(again.ms);
    await stop(again.proc);
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const [binary, f] of figures) {
  rmSync(f.tmp, { recursive: true, force: true });
  console.log(`\n${binary}`);
  console.log(`binary size                 ${(statSync(binary).size / 1e6).toFixed(1)} MB`);
  const parts = executableContents(binary);
  if (parts) console.log(contentsTable(parts));
  console.log(`first start (library written to the cache or temporary directory)  ${f.first.toFixed(0)} ms`);
  console.log(
    `start → first 200 /healthz  median ${median(f.fresh).toFixed(0)} ms on a new data dir, ${median(f.warm).toFixed(0)} ms on an existing one (${RUNS} runs each; target ≤ 500 ms)`,
  );
  console.log(`idle RSS after start        ${f.idleRss.toFixed(0)} MB (target ≤ 150 MB)`);
}
