/**
 * asciiJsonText: a JSON body decoded with its non-ASCII characters as escapes parses to
 * exactly what the plain UTF-8 decoding parses to, and fails where that fails.
 */
import { describe, expect, test } from "bun:test";
import { asciiJsonText } from "../src/tools/json-text";

const utf8 = (s: string) => new TextEncoder().encode(s);
const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...utf8(p)] : p)));
/** JSON.parse of the plain decoding, or the error's class. */
const plain = (b: Uint8Array) => parsed(new TextDecoder().decode(b));
const ours = (b: Uint8Array) => parsed(asciiJsonText(b));
function parsed(text: string): unknown {
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { error: (err as Error).name };
  }
}
const isAsciiText = (s: string) => [...s].every((c) => c.charCodeAt(0) < 0x80);

describe("asciiJsonText", () => {
  test.each([
    ["plain ASCII", bytes('{"a":"hello","b":[1,2.5,null,true]}')],
    ["two-byte characters", bytes('{"name":"café crème","k":"ñ"}')],
    ["three-byte characters", bytes('["☃ snow — dash", "中文"]')],
    ["four-byte characters (surrogate pairs)", bytes('{"e":"🙂 ok 𝄞"}')],
    ["non-ASCII in a key", bytes('{"clé":1}')],
    ["a leading byte order mark", bytes([0xef, 0xbb, 0xbf], '{"a":"é"}')],
    ["U+FEFF inside a string is kept", bytes('{"a":"', [0xef, 0xbb, 0xbf], 'x"}')],
    ["U+FEFF inside and a leading mark", bytes([0xef, 0xbb, 0xbf], '["', [0xef, 0xbb, 0xbf], '"]')],
    ["malformed UTF-8 becomes U+FFFD", bytes('{"a":"', [0xff, 0xc3], 'x"}')],
    ["a truncated sequence before ASCII", bytes('["', [0xe2, 0x98], '"]')],
    ["an encoded lone surrogate", bytes('["', [0xed, 0xa0, 0x80], '"]')],
    ["escapes already in the text", bytes('["\\u00e9 é \\ud83d\\ude42"]')],
    ["a backslash before non-ASCII is invalid either way", bytes('["\\é"]')],
    ["an escaped backslash before non-ASCII", bytes('["\\\\é"]')],
    ["three backslashes before non-ASCII", bytes('["\\\\\\é"]')],
    ["non-ASCII outside a string is invalid either way", bytes('{"a":1}\u00a0')],
    ["non-ASCII as a value is invalid either way", bytes('{"a":é}')],
    ["empty", bytes("")],
    ["whitespace and non-ASCII only", bytes(" \u00a0 ")],
  ])("%s", (_, body) => {
    const text = asciiJsonText(body);
    // Text that escapes a non-ASCII character is decoded plainly, to fail as it would.
    expect(isAsciiText(text)).toBe(!/(^|[^\\])(\\\\)*\\[^ -~\t\n\r]/.test(new TextDecoder().decode(body)));
    expect(ours(body)).toEqual(plain(body));
  });

  test("random texts of mixed scripts parse to the same values", () => {
    const alphabet = ["a", "Z", " ", "\n", '"', "\\", "é", "ß", "☃", "—", "中", "🙂", "\u00a0", "\ufeff", "\u2028"];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
    for (let n = 0; n < 300; n++) {
      const s = Array.from({ length: next() % 40 }, () => alphabet[next() % alphabet.length]).join("");
      const body = utf8(JSON.stringify({ documents: [{ content: s, name: s.slice(0, 5) }] }));
      expect(ours(body)).toEqual({ value: { documents: [{ content: s, name: s.slice(0, 5) }] } });
    }
  });

  test("characters across the edges of the blocks tested at once", () => {
    for (let pad = 500; pad < 520; pad++)
      for (const c of ["é", "☃", "🙂", "\\é"]) {
        const body = utf8(`["${"a".repeat(pad)}${c.repeat(3)}${"b".repeat(pad)}${c}"]`);
        expect(ours(body)).toEqual(plain(body));
      }
  });

  test("random bytes decode as TextDecoder decodes them", () => {
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
    for (let n = 0; n < 300; n++) {
      const body = bytes(
        '["',
        Array.from({ length: next() % 24 }, () => next() % 256).filter((b) => b >= 0x80 || b > 0x5c),
        '"]',
      );
      expect(ours(body)).toEqual(plain(body));
    }
  });
});
