/**
 * The whole test suite, as `npm test` and CI run it: type-check and lint, build the single executable
 * (the binary tests start it as a process), run every test file with bun's
 * runner, its files in parallel, and end with one plain summary line: "tests: N passed, N failed".
 * One PostgreSQL server and one Ceph RGW serve the whole run (test/support/run-services.ts):
 * they start while the checks and the build run, and stop at the end, whatever the outcome.
 */
import { $ } from "bun";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRunServices } from "../test/support/run-services";

const root = join(import.meta.dir, "..");

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

/** bun's runner over every file with the shared services' variables; the run's exit code. */
async function runTests(shared: Record<string, string>): Promise<number> {
  // Files run in parallel, one runner process per core (bun's default), the slowest first as
  // test/timings.json says (`npm test -- --update-timings` writes it anew). `--parallel=1`
  // among the arguments runs them one after another. (Three runners on two cores saved
  // nothing and one such run ended in a runner's SIGSEGV: docs/notes/2026-12-06-suite-speed-2.md.)
  // --no-isolate: each runner loads the modules once for all its files, instead of once a
  // file (about 0.7 s of CPU each, 145 s over the suite).
  const args = process.argv.slice(2);
  const parallel = args.some((a) => a.startsWith("--parallel")) ? [] : ["--parallel", "--no-isolate"];
  const timings = join(root, "test", "timings.json");
  const proc = Bun.spawn(["bun", "test", "--timeout", "60000", ...parallel, `--timings=${timings}`, ...args], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, ...shared, FORCE_COLOR: "0", TMPDIR: scratch },
  });
  const out = { tail: "", pass: 0, fail: 0 };
  await Promise.all([pump(proc.stdout, process.stdout, out), pump(proc.stderr, process.stderr, out)]);
  const code = await proc.exited;

  const count = (word: string) => Number(new RegExp(`^\\s*(\\d+) ${word}$`, "m").exec(out.tail)?.[1] ?? -1);
  const passed = count("pass");
  const failed = count("fail");
  if (passed >= 0) console.log(`\ntests: ${passed} passed, ${Math.max(failed, 0)} failed`);
  else
    console.log(
      `\ntests: bun ended (${proc.signalCode ?? `exit code ${code}`}) before its summary, ` +
        `after ${out.pass} passed and ${out.fail} failed`,
    );
  return code !== 0 ? code : passed <= 0 ? 1 : 0;
}

/**
 * Copies the runner's output through, keeping its last 4,000 characters (`tail`) and the test
 * lines as they were printed (`pass`, `fail`): the only count left when bun itself dies before its summary.
 */
async function pump(
  stream: ReadableStream<Uint8Array>,
  to: NodeJS.WriteStream,
  out: { tail: string; pass: number; fail: number },
): Promise<void> {
  const decoder = new TextDecoder();
  let line = "";
  for await (const part of stream as unknown as AsyncIterable<Uint8Array>) {
    const text = decoder.decode(part, { stream: true });
    to.write(text);
    out.tail = (out.tail + text).slice(-4000);
    const lines = (line + text).split("\n");
    line = lines.pop() ?? "";
    for (const l of lines) {
      if (l.startsWith("(pass) ")) out.pass++;
      else if (l.startsWith("(fail) ")) out.fail++;
    }
  }
}
