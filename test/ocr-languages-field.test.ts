/** The dashboard's OCR languages box: what it sends for what is typed, and what it refuses before sending. */
import { expect, test } from "bun:test";
import { checkLanguages, parseLanguages } from "../src/dashboard/components/OcrLanguagesField";

test.each([
  ["", null],
  ["  ", null],
  ["eng", ["eng"]],
  ["eng, deu", ["eng", "deu"]],
  ["eng+deu", ["eng", "deu"]],
  ["eng,", ["eng"]],
  ["chi_sim deu", ["chi_sim", "deu"]],
])("%p is sent as %p", (typed, sent) => {
  expect(parseLanguages(typed)).toEqual(sent);
});

test.each([
  [null, undefined],
  [["eng", "deu"], undefined],
  [["en-GB"], '"en-GB" is not a language data name (like eng, deu or chi_sim).'],
  [["../etc"], '"../etc" is not a language data name (like eng, deu or chi_sim).'],
  [["eng", "eng"], "Name each language once."],
  [["a", "b", "c", "d", "e", "f", "g", "h", "i"], "Use at most 8 languages."],
])("%p is refused with %p", (names, problem) => {
  expect(checkLanguages(names)).toBe(problem);
});
