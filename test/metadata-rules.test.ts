/** The rules for source metadata and external ids (docs/API.md, "Metadata and external ids"). */
import { describe, expect, test } from "bun:test";
import { externalIdProblem, metadataProblems, parseStoredMetadata } from "../src/core/metadata";

describe("metadata rules", () => {
  const accepted: [string, unknown][] = [
    ["empty", {}],
    ["each value type", { team: "hr", year: 2024, draft: false, tags: ["policy", "leave"], ratio: -0.5 }],
    ["dotted and dashed keys", { "a.b": "x", "c-d": "y", _private: "z" }],
    ["64 keys", Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`, i]))],
    ["100 tags", { tags: Array.from({ length: 100 }, (_, i) => `t${i}`) }],
    ["2,000-character string", { note: "x".repeat(2000) }],
  ];
  test.each(accepted)("accepts %s", (_, input) => {
    expect(metadataProblems(input)).toEqual([]);
  });

  const refused: [string, unknown, string, RegExp][] = [
    ["an array", ["a"], "metadata", /JSON object/],
    ["null", null, "metadata", /JSON object/],
    ["a string", "team=hr", "metadata", /JSON object/],
    ["a key starting with a digit", { "1team": "x" }, "metadata.1team", /start with a letter/],
    ["a key with a space", { "my team": "x" }, "metadata.my team", /start with a letter/],
    ["a 65-character key", { ["k".repeat(65)]: "x" }, `metadata.${"k".repeat(65)}`, /up to 64/],
    ["a reserved key", { sourceId: "x" }, "metadata.sourceId", /reserved/],
    ["externalId as a key", { externalId: "x" }, "metadata.externalId", /reserved/],
    ["a nested object", { a: { b: 1 } }, "metadata.a", /string, a finite number/],
    ["null value", { a: null }, "metadata.a", /string, a finite number/],
    ["an array of numbers", { a: [1, 2] }, "metadata.a", /array of strings/],
    ["101 items", { a: Array.from({ length: 101 }, () => "x") }, "metadata.a", /at most 100 items/],
    ["a 2,001-character string", { a: "x".repeat(2001) }, "metadata.a", /at most 2000/],
    ["65 keys", Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i])), "metadata", /at most 64 keys/],
    [
      "more than 16 KB in all",
      Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, "x".repeat(1900)])),
      "metadata",
      /16 KB/,
    ],
  ];
  test.each(refused)("refuses %s", (_, input, field, message) => {
    const problems = metadataProblems(input);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]!.field).toBe(field);
    expect(problems[0]!.message).toMatch(message);
  });

  test("infinite numbers cannot come from JSON but are refused anyway", () => {
    expect(metadataProblems({ a: Number.POSITIVE_INFINITY })[0]!.message).toMatch(/finite/);
  });
});

describe("external id rules", () => {
  const cases: [string, unknown, RegExp | undefined][] = [
    ["a wiki page id", "wiki/4711", undefined],
    ["256 characters", "x".repeat(256), undefined],
    ["unicode", "Bücher – ½", undefined],
    ["empty", "", /empty/],
    ["only spaces", "   ", /empty/],
    ["257 characters", "x".repeat(257), /at most 256/],
    ["a newline", "a\nb", /control/],
    ["a NUL", "a\u0000b", /control/],
    ["a number", 4711, /string/],
  ];
  test.each(cases)("%s", (_, input, message) => {
    const problem = externalIdProblem(input);
    if (!message) expect(problem).toBeUndefined();
    else expect(problem?.message).toMatch(message);
  });
});

test("stored metadata reads back, and a damaged value reads as none", () => {
  expect(parseStoredMetadata('{"team":"hr","tags":["a"]}')).toEqual({ team: "hr", tags: ["a"] });
  expect(parseStoredMetadata("not json")).toEqual({});
  expect(parseStoredMetadata("[1]")).toEqual({});
  expect(parseStoredMetadata(null)).toEqual({});
});
