import { expect, test } from "bun:test";
import { dlopen, FFIType } from "bun:ffi";
import { readFileSync } from "node:fs";
import { limitMallocArenas, releaseMemory } from "../src/tools/memory";

const glibc = process.platform === "linux" && !readFileSync("/proc/self/maps", "utf8").includes("musl");
const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;

test.if(glibc)("releaseMemory hands freed C heap back to the system", () => {
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
  expect(releaseMemory()).toBe(true);
  const after = rssMb();
  free(pin);
  expect(held - after).toBeGreaterThan(40);
});

test.if(glibc)("the arena cap is accepted by glibc", () => {
  expect(limitMallocArenas(2)).toBe(true);
});
