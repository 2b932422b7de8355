/** How `read` rebuilds a span of a file, url or api source from its chunks (docs/API.md, MCP). */
import { describe, expect, test } from "bun:test";
import { stitch } from "../src/features/mcp/source-text";

// "hello   world, again" chunked with a gap of three spaces and an overlap of ", "
const TEXT = "hello   world, again";
const CHUNKS = [
  { start: 0, end: 5, text: "hello" },
  { start: 8, end: 14, text: "world," },
  { start: 13, end: 20, text: ", again" },
];

describe("stitch", () => {
  const cases: [string, number, number, string][] = [
    ["the whole text", 0, 20, TEXT],
    ["across the gap", 2, 11, "llo   wor"],
    ["across the overlap", 10, 17, "rld, ag"],
    ["inside one chunk", 9, 12, "orl"],
    ["only the gap", 5, 8, "   "],
    ["past the last chunk", 17, 23, "ain   "],
  ];
  test.each(cases)("%s", (_what, from, to, expected) => {
    const out = stitch(CHUNKS, from, to);
    expect(out).toBe(expected);
    expect(out.length).toBe(to - from);
  });

  test("the gap is whitespace in the source, so only whitespace differs", () => {
    const gappy = "hello\n\n\tworld, again";
    expect(stitch(CHUNKS, 0, 20).replace(/\s/g, "")).toBe(gappy.replace(/\s/g, ""));
  });
});
