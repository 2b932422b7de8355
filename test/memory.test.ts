import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { limitMallocArenas } from "../src/tools/memory";

const glibc = process.platform === "linux" && !readFileSync("/proc/self/maps", "utf8").includes("musl");

test.if(glibc)("releaseMemory hands freed C heap back to the system", async () => {
  // In a process of its own (see the probe's header): the runner's heap is shared by every test file.
  const probe = Bun.spawn(["bun", join(import.meta.dir, "support", "trim-probe.ts")], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(probe.stdout).text();
  expect(await probe.exited).toBe(0);
  const { held, after, released } = JSON.parse(out) as { held: number; after: number; released: boolean };
  expect(released).toBe(true);
  expect(held - after).toBeGreaterThan(40);
});

test.if(glibc)("the arena cap is accepted by glibc", () => {
  expect(limitMallocArenas(2)).toBe(true);
});
