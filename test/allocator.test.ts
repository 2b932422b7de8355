/**
 * `ragd serve` restarts itself with a server's allocator settings (src/tools/allocator.ts):
 * which commands do, with which arguments, and when they run as they are. The compiled
 * binary's own restart is checked in test/binary.test.ts.
 */
import { expect, test } from "bun:test";
import { serverRestart } from "../src/tools/allocator";

const proc = (argv: string[], execArgv: string[] = [], env: Record<string, string> = { PATH: "/bin" }) => ({
  argv,
  execArgv,
  execPath: "/opt/ragd",
  env,
});

test("serve restarts as the same command with the hole sweep turned off in its environment", () => {
  const compiled = serverRestart(proc(["bun", "/$bunfs/root/ragd", "serve", "--port", "0"], ["--smol"]), true);
  expect(compiled).toEqual({
    path: "/opt/ragd",
    // The binary's own runtime flags are built in: not passed again, or they would be arguments.
    args: ["/opt/ragd", "serve", "--port", "0"],
    env: { PATH: "/bin", MIMALLOC_PURGE_HOLES: "0" },
  });
  const source = serverRestart(proc(["/opt/bun", "/src/main.ts", "serve"], ["--max-http-header-size=1048576"]), false);
  expect(source?.args).toEqual(["/opt/ragd", "--max-http-header-size=1048576", "/src/main.ts", "serve"]);
});

test("other commands, a value the user set, and watch mode run as they are", () => {
  expect(serverRestart(proc(["bun", "/$bunfs/root/ragd", "version"]), true)).toBeNull();
  expect(serverRestart(proc(["bun", "/$bunfs/root/ragd", "user", "list"]), true)).toBeNull();
  expect(serverRestart(proc(["bun", "/$bunfs/root/ragd"]), true)).toBeNull();
  expect(serverRestart(proc(["bun", "/x", "serve"], [], { MIMALLOC_PURGE_HOLES: "1" }), true)).toBeNull();
  // Another of the allocator's settings does not stand for this one: it is added beside it.
  const other = serverRestart(proc(["bun", "/x", "serve"], [], { MIMALLOC_PURGE_DELAY: "10" }), true);
  expect(other?.env).toEqual({ MIMALLOC_PURGE_DELAY: "10", MIMALLOC_PURGE_HOLES: "0" });
  expect(serverRestart(proc(["/opt/bun", "/src/main.ts", "serve"], ["--watch"]), false)).toBeNull();
});

test("a process under the CPU profiler runs as it is: the profiler's signals do not survive an execve", () => {
  expect(serverRestart(proc(["/opt/bun", "/src/main.ts", "serve"], ["--cpu-prof"]), false)).toBeNull();
  const profiled = { PATH: "/bin", BUN_OPTIONS: "--cpu-prof --cpu-prof-dir=/tmp/p" };
  expect(serverRestart(proc(["bun", "/$bunfs/root/ragd", "serve"], [], profiled), true)).toBeNull();
  // Other runtime options do not stop the restart.
  const other = { PATH: "/bin", BUN_OPTIONS: "--smol" };
  expect(serverRestart(proc(["bun", "/$bunfs/root/ragd", "serve"], [], other), true)).not.toBeNull();
});
