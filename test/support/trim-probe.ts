/**
 * Run as its own process by test/memory.test.ts: leaves 64 MB of freed C heap behind
 * one live block, calls releaseMemory, and prints the RSS before and after as JSON.
 * Apart from the test runner, so the runner's own heap (and the LanceDB threads of
 * other test files) never see these allocations or the trim.
 */
import { dlopen, FFIType } from "bun:ffi";
import { readFileSync } from "node:fs";
import { releaseMemory } from "../../src/tools/memory";

const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;
const libc = dlopen("libc.so.6", {
  calloc: { args: [FFIType.u64, FFIType.u64], returns: FFIType.ptr },
  free: { args: [FFIType.ptr], returns: FFIType.void },
});
const { calloc, free } = libc.symbols;
// 64 MB of small blocks, as LanceDB's threads leave them, and one more above them:
// the freed space is not at the top of the heap, so free() alone keeps it resident.
const blocks = Array.from({ length: 64 * 1024 }, () => calloc(1, 1024)!);
const pin = calloc(1, 1024)!;
for (const b of blocks) free(b);
const held = rssMb();
const released = releaseMemory();
const after = rssMb();
free(pin);
console.log(JSON.stringify({ held, after, released }));
