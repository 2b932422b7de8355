/**
 * The whole test suite, as `npm test` and CI run it: type-check and lint, build the single executable
 * (the binary tests start it as a process), run every test file with bun's
 * runner, its files in parallel, and end with one plain summary line: "tests: N passed, N failed".
 * One PostgreSQL server and one Ceph RGW serve the whole run (test/support/run-services.ts):
 * they start while the checks and the build run, and stop at the end, whatever the outcome.
 */
import { $ } from "bun";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRunServices } from "../test/support/run-services";
import { type Failure, RunnerOut } from "./test-output";

const root = join(import.meta.dir, "..");

/**
 * Files that spend most of their time waiting (on leases, a browser, another process, a
 * bucket, a slow fake embedder) rather than computing: alone on a quiet machine each waited
 * more than it used a core (wall − user − system, s: replicas 27, dashboard 15, s3-vectors
 * 12, metrics-binary 10, replica-recovery 10, pool-cap 9, postgres-serve 8, disk-full 8,
 * object-storage-serve 8; docs/notes/2026-12-07-suite-lanes.md). A runner of the two that
 * work the cores sat mostly idle while it ran one of them: they run one after another in a
 * third runner beside those two.
 */
const WAITING_FILES = [
  "test/replica-recovery.test.ts",
  "test/replicas.test.ts",
  "test/s3-vectors.test.ts",
  "test/metrics-binary.test.ts",
  "test/pool-cap.test.ts",
  "test/postgres-serve.test.ts",
  "test/disk-full.test.ts",
  "test/object-storage-serve.test.ts",
  "test/e2e/dashboard.e2e.test.ts",
];

// The tests make their data directories under the system's temporary directory and many
// leave them (a binary may still be writing there when its test ends); bun's runner fires no
// exit event to clean up after them. One scratch directory per run, removed at the end, keeps
// a run from leaving about a thousand directories, over a gigabyte, behind it; the shared
// services keep their data there too.
// It is open to all like /tmp itself: the PostgreSQL tests run the server as its own user.
const scratch = mkdtempSync(join(tmpdir(), "ragd-suite-"));
chmodSync(scratch, 0o1777);
process.env.TMPDIR = scratch;
const services = startRunServices();
const cleanUp = async () => {
  await (await services).stop();
  rmSync(scratch, { recursive: true, force: true });
};
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => cleanUp().finally(() => process.exit(130)));

let code = 1;
try {
  // Types and lint first, as Hono's suite does: a failure here ends the run before the build.
  const bin = join(root, "node_modules", ".bin");
  await $`${join(bin, "tsc")} --noEmit`.cwd(root);
  await $`${join(bin, "biome")} check src test bench scripts`.cwd(root);
  // --quick: the native library compressed in seconds, not the release's minutes on a fresh clone.
  await $`bun ${join(root, "scripts", "build.ts")} --quick`.cwd(root);
  code = await runTests((await services).env);
} finally {
  await cleanUp();
}
process.exit(code);

/**
 * bun's runner over every file with the shared services' variables; the run's exit code.
 * Files run in parallel, one runner process per core (bun's default), the slowest first as
 * test/timings.json says (`npm test -- --update-timings` writes it anew), and WAITING_FILES
 * in a runner of their own beside them. Any argument (a file, `--parallel=1`, a filter)
 * runs one runner over what it names instead, as bun's own command would.
 * --no-isolate: each runner loads the modules once for all its files, instead of once a
 * file (about 0.7 s of CPU each, 145 s over the suite).
 */
async function runTests(shared: Record<string, string>): Promise<number> {
  const ended = await Promise.all(
    runners(process.argv.slice(2), shared).map(async (run) => {
      const first = await run;
      return first.out.crash ? againAfterCrash(first, shared) : tallyOf(first);
    }),
  );
  recapFailures(ended.flatMap((t) => t.failures));
  let passed = 0;
  let failed = 0;
  let code = 0;
  for (const t of ended) {
    if (t.unfinished) {
      console.log(`\ntests: ${t.unfinished}`);
      return t.exit !== 0 ? t.exit : 1;
    }
    passed += t.passed;
    failed += t.failed;
    if (t.exit !== 0) code = t.exit;
  }
  console.log(`\ntests: ${passed} passed, ${failed} failed`);
  return code !== 0 ? code : passed <= 0 ? 1 : 0;
}

type Ended = Awaited<ReturnType<typeof runner>>;

/** What one runner came to: its counts, failures and exit code; `unfinished` says why there are no counts. */
interface Tally {
  passed: number;
  failed: number;
  exit: number;
  failures: Failure[];
  unfinished?: string;
}

function tallyOf({ out, exit, signal }: Ended): Tally {
  const passed = out.summary("pass");
  if (passed < 0) {
    const why = `bun ended (${signal ?? `exit code ${exit}`}) before its summary, after ${out.pass} passed and ${out.fail} failed`;
    return { passed: out.pass, failed: out.fail, exit, failures: out.failures, unfinished: why };
  }
  return { passed, failed: Math.max(out.summary("fail"), 0), exit, failures: out.failures };
}

/**
 * A runner whose test worker crashed in bun itself (a SIGSEGV in its runtime has ended a run
 * about once in some tens here, in a different file each time) ends every file that worker
 * had left: those files run once more in a runner of their own, and the two runs count as
 * one, the crash named above the summary. So do the files that failed in that runner: a
 * browser test ending as the worker crashed lost its browser ("Target page, context or
 * browser has been closed"), and a real failure fails again. A second crash is the run's
 * failure.
 */
async function againAfterCrash(first: Ended, shared: Record<string, string>): Promise<Tally> {
  const taken = new Set([...first.out.aborted, ...first.out.failures.map((f) => f.file)]);
  // No file named: bun's runner given none would run every file.
  if (taken.size === 0) return tallyOf(first);
  console.log(`\nsuite: ${first.out.crash}; the ${taken.size} files it ended run again`);
  // Every argument but the test files (a filter's value too: `-t name`).
  const flags = first.args.filter((a) => !/\.test\.tsx?$/.test(a));
  const rerun = await runner([...flags, ...[...taken].map((f) => `./${f}`)], shared, first.nice);
  const again = tallyOf(rerun);
  const kept = [...first.out.files].filter(([file]) => !taken.has(file)).map(([, n]) => n);
  const keptFailures = first.out.failures.filter((f) => !taken.has(f.file));
  const failedBefore = kept.reduce((n, f) => n + f.fail, 0);
  const second = rerun.out.crash ? `, and crashed again (${rerun.out.crash})` : "";
  console.log(`\nsuite: after bun's crash (${first.out.crash}), ${taken.size} files ran again${second}`);
  return {
    passed: kept.reduce((n, f) => n + f.pass, 0) + again.passed,
    failed: failedBefore + again.failed,
    exit: failedBefore > 0 ? 1 : again.exit,
    failures: [...keptFailures, ...again.failures],
    unfinished: again.unfinished,
  };
}

/**
 * The failed tests again, each with its error, just above the summary line: the runners'
 * output interleaves over some thousands of lines, and a log read from its end shows this first.
 */
function recapFailures(failures: Failure[]): void {
  if (failures.length === 0) return;
  console.log(`\nfailed tests (${failures.length}), each with its error:`);
  for (const { text } of failures.slice(0, 20)) console.log(`\n${text}`);
  if (failures.length > 20) console.log(`\n… and ${failures.length - 20} more above`);
}

/** The runners `args` ask for: the lanes, or with any argument but `--update-timings`, one runner over what it names. */
function runners(args: string[], shared: Record<string, string>) {
  const timings = `--timings=${join(root, "test", "timings.json")}`;
  if (args.some((a) => a !== "--update-timings")) {
    const parallel = args.some((a) => a.startsWith("--parallel")) ? [] : ["--parallel", "--no-isolate"];
    return [runner([...parallel, timings, ...args], shared, 0)];
  }
  return [
    // The busy runners go at a lower priority: a waiting file's short bursts (a process
    // starting, a lease ending) are the ones a test times.
    runner(["--parallel", "--no-isolate", timings, ...args, ...busyFiles()], shared, 5),
    runner(["--parallel=1", "--no-isolate", ...WAITING_FILES.map((f) => `./${f}`)], shared, 0),
  ];
}

/** Every test file but WAITING_FILES, as paths bun's runner takes for themselves. */
function busyFiles(): string[] {
  const gone = WAITING_FILES.filter((f) => !existsSync(join(root, f)));
  // bun's runner passes over a path that names no file: a renamed file would leave the list unseen.
  if (gone.length) throw new Error(`WAITING_FILES names files that are not there: ${gone.join(", ")}`);
  const waiting = new Set(WAITING_FILES);
  return [...new Bun.Glob("test/**/*.test.ts").scanSync({ cwd: root })]
    .filter((f) => !waiting.has(f))
    .map((f) => `./${f}`);
}

/** One `bun test` with `args` at niceness `nice`, its output copied through; how it ended. */
async function runner(args: string[], shared: Record<string, string>, nice: number) {
  const command = ["bun", "test", "--timeout", "60000", ...args];
  const proc = Bun.spawn(nice > 0 ? ["nice", "-n", String(nice), ...command] : command, {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, ...shared, FORCE_COLOR: "0", TMPDIR: scratch },
  });
  const out = new RunnerOut();
  await Promise.all([pump(proc.stdout, process.stdout, out.reader()), pump(proc.stderr, process.stderr, out.reader())]);
  const exit = await proc.exited;
  return { out, exit, signal: proc.signalCode, args, nice };
}

/** Copies a stream through in whole lines (two runners write to the same terminal), each read by `read`. */
async function pump(stream: ReadableStream<Uint8Array>, to: NodeJS.WriteStream, read: (line: string) => void) {
  const decoder = new TextDecoder();
  let line = "";
  for await (const part of stream as unknown as AsyncIterable<Uint8Array>) {
    const lines = (line + decoder.decode(part, { stream: true })).split("\n");
    line = lines.pop() ?? "";
    if (lines.length > 0) to.write(`${lines.join("\n")}\n`);
    for (const l of lines) read(l);
  }
  if (line) {
    to.write(line);
    read(line);
  }
}
