import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Tiktoken } from "js-tiktoken/lite";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import { chunkText, countTokens } from "../src/ingest/chunk";
import type { Chunk, ChunkingStrategy, ChunkOptions } from "../src/ingest/types";

const STRATEGIES: ChunkingStrategy[] = ["recursive", "fixed", "sentence", "paragraph", "markdown", "token"];
// Strategies that trim whitespace at chunk edges (fixed keeps it for an exact overlap,
// token keeps the space the tokenizer attaches to a word).
const TRIMMED: ChunkingStrategy[] = ["recursive", "sentence", "paragraph", "markdown"];

// The reference tokenizer, to check our own counter and the token strategy against.
const tiktoken = new Tiktoken(cl100k);
const referenceTokens = (s: string) => tiktoken.encode(s, [], []).length;

const isPairMiddle = (text: string, pos: number) =>
  /[\ud800-\udbff]/.test(text.charAt(pos - 1)) && /[\udc00-\udfff]/.test(text.charAt(pos));

/** Asserts every invariant a chunking of `text` must hold; returns the chunks. */
function expectValid(text: string, opts: ChunkOptions, measure: (s: string) => number = (s) => s.length): Chunk[] {
  const chunks = chunkText(text, opts);
  let covered = 0;
  chunks.forEach((c, i) => {
    expect(c.index).toBe(i);
    expect(c.text).toBe(text.slice(c.start, c.end));
    expect(c.text).toMatch(/\S/);
    expect(measure(c.text)).toBeLessThanOrEqual(opts.size);
    expect(isPairMiddle(text, c.start) || isPairMiddle(text, c.end)).toBe(false);
    if (TRIMMED.includes(opts.strategy)) expect(c.text).toBe(c.text.trim());
    const prev = chunks[i - 1];
    if (prev) {
      expect(c.start).toBeGreaterThan(prev.start);
      if (c.start < prev.end) expect(measure(text.slice(c.start, prev.end))).toBeLessThanOrEqual(opts.overlap);
    }
    // Nothing but whitespace may fall between what earlier chunks covered and this one.
    expect(text.slice(covered, c.start)).not.toMatch(/\S/);
    covered = Math.max(covered, c.end);
  });
  expect(text.slice(covered)).not.toMatch(/\S/);
  return chunks;
}

const WORDS = [
  "the",
  "quick",
  "brown",
  "fox",
  "jumps",
  "e.g.",
  "Dr.",
  "naïve",
  "日本語",
  "😀",
  "👩‍👩‍👧",
  "x1",
  "<|endoftext|>",
];
const SEPARATORS = [
  " ",
  " ",
  " ",
  "\n",
  "\r\n",
  "\n\n",
  "\r\n\r\n",
  ". ",
  "? ",
  "! ",
  "。",
  "\t",
  "   ",
  "\u00a0",
  " ".repeat(120),
  "\r\n".repeat(40),
];
const MARKDOWN = ["# Title\n", "\n## Section\r\n", "\n```js\n", "\n```\n", "~~~\n", "- item\n", "> quote\n"];

/** A long word, sometimes far longer than any chunk. */
const longWord = (max: number) =>
  fc.string({ unit: fc.constantFrom("a", "b", "z", "é", "😀", "1"), minLength: 40, maxLength: max, size: "medium" });

/** Random documents: prose, unicode, CRLF, markdown, odd whitespace and long words. */
const documents = (maxLong: number) =>
  fc
    .array(
      fc.oneof(
        { weight: 10, arbitrary: fc.constantFrom(...WORDS) },
        { weight: 10, arbitrary: fc.constantFrom(...SEPARATORS) },
        { weight: 2, arbitrary: fc.constantFrom(...MARKDOWN) },
        { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 6 }) },
        { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 4 }) },
        { weight: 1, arbitrary: longWord(maxLong) },
      ),
      // "medium": fast-check's default size would keep documents under ~300 characters.
      { maxLength: 600, size: "medium" },
    )
    .map((parts) => parts.join(""));

/** size 50..2000, biased small so most documents need several chunks; overlap < size. */
const sizes = fc
  .oneof(fc.integer({ min: 50, max: 200 }), fc.integer({ min: 50, max: 2000 }))
  .chain((size) => fc.tuple(fc.constant(size), fc.oneof(fc.constant(0), fc.integer({ min: 0, max: size - 1 }))));

describe("chunkText invariants (property)", () => {
  for (const strategy of STRATEGIES) {
    const token = strategy === "token";
    test(`${strategy}: offsets, coverage, size, overlap, determinism`, () => {
      fc.assert(
        fc.property(documents(token ? 300 : 2500), sizes, (text, [size, overlap]) => {
          const opts = { strategy, size, overlap };
          const chunks = expectValid(text, opts, token ? referenceTokens : undefined);
          expect(chunkText(text, opts)).toEqual(chunks);
        }),
        { numRuns: token ? 60 : 120 },
      );
    });
  }

  test("fixed: consecutive chunks overlap by exactly `overlap` on plain text", () => {
    const plain = fc.array(fc.constantFrom("lorem", "ipsum", "dolor", "sit", "amet", "x".repeat(70)), {
      minLength: 1,
      maxLength: 400,
      size: "medium",
    });
    fc.assert(
      fc.property(plain, sizes, (words, [size, overlap]) => {
        const text = words.join(" ");
        const chunks = expectValid(text, { strategy: "fixed", size, overlap });
        for (let i = 1; i < chunks.length; i++) expect(chunks[i - 1].end - chunks[i].start).toBe(overlap);
      }),
      { numRuns: 150 },
    );
  });

  test("countTokens matches js-tiktoken exactly", () => {
    fc.assert(
      fc.property(documents(300), (text) => {
        expect(countTokens(text)).toBe(referenceTokens(text));
      }),
      { numRuns: 200 },
    );
  });
});

describe("chunkText edge cases", () => {
  test.each(STRATEGIES)("%s: empty and whitespace-only text give no chunks", (strategy) => {
    for (const text of ["", " ", "\n\n\t", "\r\n \r\n", "\u00a0\u3000"]) {
      expect(chunkText(text, { strategy, size: 100, overlap: 10 })).toEqual([]);
    }
  });

  test.each(STRATEGIES)("%s: one huge word is hard-split within size", (strategy) => {
    const text = `start ${"x".repeat(5000)} end`;
    const measure = strategy === "token" ? countTokens : undefined;
    const chunks = expectValid(text, { strategy, size: 100, overlap: 20 }, measure);
    expect(chunks.length).toBeGreaterThan(strategy === "token" ? 5 : 50);
  });

  test.each(STRATEGIES)("%s: never splits a surrogate pair", (strategy) => {
    const text = `${"😀".repeat(400)} 👍🏽 done`;
    const measure = strategy === "token" ? countTokens : undefined;
    for (const [size, overlap] of [
      [51, 10],
      [50, 11],
      [77, 0],
    ]) {
      const chunks = expectValid(text, { strategy, size, overlap }, measure);
      for (const c of chunks) expect(c.text).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
    }
  });

  test("recursive: a huge word splits into windows overlapping by exactly `overlap`", () => {
    const chunks = chunkText("x".repeat(5000), { strategy: "recursive", size: 1000, overlap: 100 });
    expect(chunks.map((c) => [c.start, c.end])).toEqual([
      [0, 1000],
      [900, 1900],
      [1800, 2800],
      [2700, 3700],
      [3600, 4600],
      [4500, 5000],
    ]);
  });

  test.each([
    ["recursive", 20, ["line one\r\nline two", "line three"]],
    ["paragraph", 20, ["line one\r\nline two", "line three"]],
    ["sentence", 12, ["line one", "line two", "line three"]],
    ["markdown", 20, ["line one\r\nline two", "line three"]],
  ] as const)("%s: CRLF counts as a line break", (strategy, size, expected) => {
    const chunks = expectValid("line one\r\nline two\r\n\r\nline three\r\n", { strategy, size, overlap: 0 });
    expect(chunks.map((c) => c.text)).toEqual([...expected]);
  });

  test("recursive prefers paragraph, then sentence boundaries", () => {
    const text = "First paragraph is here.\n\nSecond one. It has two sentences.";
    const chunks = chunkText(text, { strategy: "recursive", size: 30, overlap: 0 });
    expect(chunks.map((c) => c.text)).toEqual(["First paragraph is here.", "Second one.", "It has two sentences."]);
  });

  test("sentence packs whole sentences and keeps abbreviations", () => {
    const text = "Use tools, e.g. a hammer. Then rest! Is it done? Yes.";
    const chunks = chunkText(text, { strategy: "sentence", size: 40, overlap: 0 });
    expect(chunks.map((c) => c.text)).toEqual(["Use tools, e.g. a hammer. Then rest!", "Is it done? Yes."]);
  });

  const MD =
    "# A\n\nIntro.\n\n## B\n\n```js\nconst x = 1;\n\n// # not a heading\nconst y = 2;\n```\n\nAfter.\n\n## C\n\nEnd.\n";
  const FENCE = "```js\nconst x = 1;\n\n// # not a heading\nconst y = 2;\n```";

  test("markdown: splits at headings, keeps each heading with its section", () => {
    const chunks = expectValid(MD, { strategy: "markdown", size: 80, overlap: 0 });
    expect(chunks.map((c) => c.text.split("\n")[0])).toEqual(["# A", "## B", "## C"]);
    expect(chunks[1].text).toContain(FENCE);
  });

  test("markdown: a code fence stays whole when its section must be split", () => {
    const chunks = expectValid(MD, { strategy: "markdown", size: 70, overlap: 0 });
    expect(chunks.map((c) => c.text)).toEqual(["# A\n\nIntro.", `## B\n\n${FENCE}`, "After.", "## C\n\nEnd."]);
  });

  test("markdown: a code fence longer than size is split at its lines", () => {
    const code = Array.from({ length: 40 }, (_, i) => `line ${i} of code`).join("\n");
    const chunks = expectValid(`# Code\n\n\`\`\`\n${code}\n\`\`\`\n`, { strategy: "markdown", size: 100, overlap: 30 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks.slice(1)) expect(c.text).toMatch(/^(line \d+ of code|```)/);
  });

  test.each([
    [10, 0],
    [10, 3],
    [64, 16],
  ])("token: size %i, overlap %i counted in cl100k tokens", (size, overlap) => {
    const text = "Hello world, this is a test of token chunking. ".repeat(30);
    const chunks = expectValid(text, { strategy: "token", size, overlap }, referenceTokens);
    const total = referenceTokens(text);
    expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(total / size));
    expect(chunks.some((c) => referenceTokens(c.text) === size || referenceTokens(c.text) === size - 1)).toBe(true);
  });

  test("token: special-token text is ordinary text", () => {
    expect(countTokens("a <|endoftext|> b")).toBe(referenceTokens("a <|endoftext|> b"));
    expectValid("<|endoftext|> ".repeat(50), { strategy: "token", size: 20, overlap: 5 }, referenceTokens);
  });

  test("fixed: windows step by size - overlap and avoid cutting words", () => {
    const nospace = chunkText("abcdefghij".repeat(10), { strategy: "fixed", size: 30, overlap: 10 });
    expect(nospace.map((c) => c.start)).toEqual([0, 20, 40, 60, 80]);
    const words = chunkText("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu", {
      strategy: "fixed",
      size: 20,
      overlap: 0,
    });
    expect(words.map((c) => c.text)).toEqual([
      "alpha beta gamma ",
      "delta epsilon zeta ",
      "eta theta iota kappa",
      " lambda mu",
    ]);
  });

  test.each([
    [{ strategy: "recursive", size: 0, overlap: 0 }],
    [{ strategy: "recursive", size: 100, overlap: 100 }],
    [{ strategy: "recursive", size: 100, overlap: -1 }],
    [{ strategy: "recursive", size: 10.5, overlap: 0 }],
    [{ strategy: "semantic", size: 100, overlap: 0 }],
  ])("rejects invalid options %j", (opts) => {
    expect(() => chunkText("some text", opts as ChunkOptions)).toThrow(RangeError);
  });

  test("recursive chunks 10 MB of prose in well under two seconds", () => {
    const sentences = [
      "The committee met on Tuesday to review the budget.",
      "Nobody expected the results to be so clear!",
      "Why would anyone object?",
    ];
    const paragraph = Array.from({ length: 12 }, (_, i) => sentences[i % 3]).join(" ");
    const text = `${paragraph}\n\n`.repeat(Math.ceil(10_000_000 / (paragraph.length + 2)));
    const started = performance.now();
    const chunks = chunkText(text, { strategy: "recursive", size: 1000, overlap: 200 });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(chunks.length).toBeGreaterThan(10_000_000 / 1000);
  });
});
