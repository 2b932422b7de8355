/**
 * UTF-8 JSON text as a string of one-byte characters. JavaScriptCore keeps a string in
 * one byte per character when every character fits, and in two otherwise: a request
 * body of 780 KB with a single "é" decodes to a 1.56 MB string, written into fresh
 * memory and parsed on the slower two-byte path. Written with its non-ASCII characters
 * as `\u` escapes, the same JSON parses to the same value from a one-byte string.
 */
import { isAscii } from "node:buffer";

const BOM = [0xef, 0xbb, 0xbf];
/** Runs are decoded apart, so a U+FEFF inside the text is a character, not a byte order mark. */
const runs = new TextDecoder("utf-8", { ignoreBOM: true });
/** Bytes tested for ASCII at a time: most blocks of a body in a Latin script have no other byte. */
const BLOCK = 512;

/**
 * `bytes` decoded as UTF-8 (a leading byte order mark dropped, malformed sequences as
 * U+FFFD, as TextDecoder does), with every non-ASCII UTF-16 unit written as a `\u`
 * escape. JSON.parse gives the same value for it as for the plain decoding wherever
 * that parses, and fails wherever that fails: outside a string, a non-ASCII character is
 * an error either way, and text that escapes one with a backslash is decoded plainly.
 * @example JSON.parse(asciiJsonText(new TextEncoder().encode('"café"'))) // "café"
 */
export function asciiJsonText(bytes: Uint8Array): string {
  const body = BOM.every((b, i) => bytes[i] === b) ? bytes.subarray(BOM.length) : bytes;
  if (isAscii(body)) return latin1(body);
  const parts: string[] = [];
  let from = 0;
  // Blocks found ASCII by the native test are skipped; the others are walked byte by byte.
  for (let block = 0; block < body.length; block += BLOCK) {
    const end = Math.min(body.length, block + BLOCK);
    if (end <= from || isAscii(body.subarray(Math.max(block, from), end))) continue;
    for (let i = Math.max(block, from); i < end; i++) {
      if (body[i]! < 0x80) continue;
      // After an escaping backslash the text is invalid JSON: an escape would turn it valid.
      if (escapesNext(body, i)) return new TextDecoder().decode(bytes);
      // A UTF-8 sequence has no ASCII byte inside, so a run of non-ASCII bytes decodes alone.
      let run = i + 1;
      while (run < body.length && body[run]! >= 0x80) run++;
      parts.push(latin1(body.subarray(from, i)), escaped(runs.decode(body.subarray(i, run))));
      from = run;
      i = run - 1;
    }
  }
  parts.push(latin1(body.subarray(from)));
  return parts.join("");
}

/** True when an odd number of backslashes comes right before `at`. */
function escapesNext(body: Uint8Array, at: number): boolean {
  let n = 0;
  while (at - n > 0 && body[at - n - 1] === 0x5c) n++;
  return n % 2 === 1;
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}

/** Each UTF-16 unit of `text` as `\uXXXX`. */
function escaped(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) out += `\\u${text.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return out;
}
