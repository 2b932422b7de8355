/**
 * New text sources' texts kept for their claims (ingest/tasks/texts-in-hand.ts): a claim takes
 * a text only under the content hash it was kept with, an entry goes once asked for, and
 * the texts kept stay within their bound, the oldest going first.
 */
import { expect, test } from "bun:test";
import { TextsInHand } from "../src/ingest/tasks/texts-in-hand";

test("a text is taken once, and only under the hash it was kept with", () => {
  const texts = new TextsInHand();
  texts.keep("a", "h1", "first text");
  texts.keep("b", "h2", "second");
  expect(texts.take("a", "h1")).toBe("first text");
  expect(texts.take("a", "h1")).toBeNull();
  // Replaced meanwhile: the stored hash is another; the entry goes all the same.
  expect(texts.take("b", "h-other")).toBeNull();
  expect(texts.take("b", "h2")).toBeNull();
  expect(texts.take("never", "h")).toBeNull();
  expect(texts.take("c", null)).toBeNull();
  expect(texts.size).toBe(0);
});

test("keeping a document again replaces its text", () => {
  const texts = new TextsInHand();
  texts.keep("a", "h1", "old");
  texts.keep("a", "h2", "newer");
  expect(texts.size).toBe("newer".length);
  expect(texts.take("a", "h1")).toBeNull();
  texts.keep("a", "h2", "newer");
  expect(texts.take("a", "h2")).toBe("newer");
});

test("past the bound the oldest texts go, and a text larger than it is not kept", () => {
  const texts = new TextsInHand(10);
  texts.keep("a", "h", "aaaa");
  texts.keep("b", "h", "bbbb");
  texts.keep("c", "h", "cccc");
  expect(texts.size).toBe(8);
  expect(texts.take("a", "h")).toBeNull();
  expect(texts.take("b", "h")).toBe("bbbb");
  texts.keep("d", "h", "d".repeat(11));
  expect(texts.take("d", "h")).toBeNull();
  expect(texts.take("c", "h")).toBe("cccc");
  expect(texts.size).toBe(0);
});
