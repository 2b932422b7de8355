/**
 * The boundaries the splitting strategies cut at, strongest first. Each cut falls after
 * its separator, so separators stay with the text before them and are trimmed away at
 * chunk edges. \r\n counts as one line break everywhere.
 */
import { cutAfter, type Splitter } from "./pack";

// A line break; a lone \r only when no \n follows, so that \r\n is never read as two.
const LB = String.raw`(?:\r\n|\n|\r(?!\n))`;

/** Blank lines: a line break followed by one or more whitespace-only lines. */
const PARAGRAPH_BREAK = new RegExp(String.raw`${LB}(?:[ \t]*${LB})+`, "g");

/** Any line break. */
const LINE_BREAK = /\r\n|\n|\r/g;

/**
 * Sentence ends: terminal punctuation, closing quotes or brackets, then whitespace that
 * is not followed by a lower-case letter (so "e.g. this" stays whole); CJK full stops
 * need no space. Blank lines end sentences too, so headings and list blocks stand alone.
 */
const SENTENCE_END = new RegExp(
  String.raw`[.!?…]+["'”’)\]]*\s+(?=[^\s\p{Ll}]|$)|[。！？]+["'”’）」』]*\s*|${PARAGRAPH_BREAK.source}`,
  "gu",
);

/** Runs of whitespace between words. */
const WORD_BREAK = /\s+/g;

export const paragraphs: Splitter = cutAfter(PARAGRAPH_BREAK);
export const lines: Splitter = cutAfter(LINE_BREAK);
export const sentences: Splitter = cutAfter(SENTENCE_END);
export const words: Splitter = cutAfter(WORD_BREAK);
