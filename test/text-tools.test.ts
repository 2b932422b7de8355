/**
 * Small text helpers on the request path: the JSON depth check every JSON body
 * passes, and the content hash every upserted document gets.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { nestsDeeperThan } from "../src/tools/json-depth";
import { sha256 } from "../src/tools/crypto";

describe("nestsDeeperThan", () => {
  const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
  test.each([
    ["short text", "[[1]]", 1, true],
    ["at the limit", deep(10), 10, false],
    ["one past the limit", deep(11), 10, true],
    ["objects and arrays mixed", `${'{"a":['.repeat(6)}${"]}".repeat(6)}`, 10, true],
    ["many shallow brackets", `[${Array.from({ length: 50 }, () => '{"a":[1]}').join(",")}]`, 10, false],
    ["brackets inside strings", JSON.stringify({ s: "[".repeat(50), t: "{".repeat(50) }), 10, false],
    ["escaped quotes in strings", `[${JSON.stringify('"[[[[[[[[[[[[')}]`, 5, false],
    ["deep after many shallow", `[${"[],".repeat(30)}${deep(12)}]`, 12, true],
    [
      "a batch body",
      JSON.stringify({ documents: Array.from({ length: 2000 }, (_, i) => ({ id: i, tags: ["x"] })) }),
      1000,
      false,
    ],
  ])("%s", (_, text, limit, expected) => expect(nestsDeeperThan(text, limit)).toBe(expected));
});

describe("sha256", () => {
  test.each([
    ["empty", ""],
    ["ASCII", "retrieval augmented generation"],
    ["Unicode", "naïve café, 日本語, emoji 🙂"],
    ["lone surrogates", "a\ud800b\udc00"],
    ["long", "abc".repeat(10_000)],
  ])("%s: the hex digest of the UTF-8 bytes", (_, s) =>
    expect(sha256(s)).toBe(createHash("sha256").update(s, "utf8").digest("hex")),
  );
});
