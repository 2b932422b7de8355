import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { limitMallocArenas } from "../src/tools/memory";

const glibc = process.platform === "linux" && !readFileSync("/proc/self/maps", "utf8").includes("musl");

test.if(glibc)("the arena cap is accepted by glibc", () => {
  expect(limitMallocArenas(2)).toBe(true);
});
