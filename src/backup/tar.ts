/**
 * A small POSIX tar (ustar, with pax headers for long paths and large sizes): just
 * what ragd's archives need, regular files only. Written by hand because it is a few
 * dozen lines and ragd takes no dependency for it.
 */
import { joinBytes } from "../tools/bytes";

const BLOCK = 512;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** A damaged, truncated or foreign archive. */
export class TarError extends Error {}

/** The header block(s) of one regular file: a pax header first when the path or size needs one. */
export function fileHeader(path: string, size: number, mtimeSec: number, mode = 0o644): Uint8Array {
  const name = encoder.encode(path);
  const pax: string[] = [];
  if (name.length > 100) pax.push(paxRecord("path", path));
  if (size > 0o77777777777) pax.push(paxRecord("size", String(size)));
  const plain = ustar(name.length > 100 ? "pax-path" : path, size > 0o77777777777 ? 0 : size, mtimeSec, mode, "0");
  if (!pax.length) return plain;
  const body = encoder.encode(pax.join(""));
  const head = ustar("PaxHeader", body.length, mtimeSec, 0o644, "x");
  return joinBytes([head, body, padding(body.length), plain]);
}

/** Zero bytes that round `size` up to a whole block. */
export function padding(size: number): Uint8Array {
  return new Uint8Array((BLOCK - (size % BLOCK)) % BLOCK);
}

/** The end of an archive: two zero blocks. */
export const END = new Uint8Array(BLOCK * 2);

function paxRecord(key: string, value: string): string {
  const text = ` ${key}=${value}\n`;
  const base = encoder.encode(text).length;
  let len = base + 1;
  while (String(len).length + base !== len) len++;
  return `${len}${text}`;
}

function ustar(path: string, size: number, mtimeSec: number, mode: number, type: string): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const put = (at: number, len: number, s: string) => h.set(encoder.encode(s).subarray(0, len), at);
  const octal = (at: number, len: number, n: number) => put(at, len, `${n.toString(8).padStart(len - 1, "0")}\0`);
  put(0, 100, path);
  octal(100, 8, mode);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, size);
  octal(136, 12, Math.floor(mtimeSec));
  put(148, 8, "        ");
  put(156, 1, type);
  put(257, 6, "ustar\0");
  put(263, 2, "00");
  let sum = 0;
  for (const b of h) sum += b;
  put(148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return h;
}

/** Reads exact byte counts from a stream of chunks. */
class ByteReader {
  private buf: Uint8Array = new Uint8Array(0);
  private readonly it: AsyncIterator<Uint8Array>;

  constructor(src: AsyncIterable<Uint8Array>) {
    this.it = src[Symbol.asyncIterator]();
  }

  /** The next `n` bytes; TarError when the stream ends first. */
  async exact(n: number): Promise<Uint8Array> {
    while (this.buf.length < n) {
      const next = await this.it.next();
      if (next.done) throw new TarError("the archive is truncated");
      this.buf = this.buf.length ? joinBytes([this.buf, next.value]) : next.value;
    }
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }

  /** The next `n` bytes, as the chunks they arrive in. */
  async *take(n: number): AsyncGenerator<Uint8Array> {
    let left = n;
    while (left > 0) {
      if (!this.buf.length) {
        const next = await this.it.next();
        if (next.done) throw new TarError("the archive is truncated");
        this.buf = next.value;
      }
      const part = this.buf.subarray(0, Math.min(left, this.buf.length));
      this.buf = this.buf.subarray(part.length);
      left -= part.length;
      yield part;
    }
  }
}

/** One file of an archive; read `body` before asking for the next entry (it is skipped otherwise). */
export interface TarEntry {
  path: string;
  size: number;
  body: () => AsyncGenerator<Uint8Array>;
}

/** The files of a tar stream, in order. Throws TarError on a bad checksum, a foreign entry type or a truncation. */
export async function* tarEntries(src: AsyncIterable<Uint8Array>): AsyncGenerator<TarEntry> {
  const r = new ByteReader(src);
  let pax: Record<string, string> = {};
  for (;;) {
    const h = await r.exact(BLOCK);
    if (h.every((b) => b === 0)) {
      await r.exact(BLOCK); // the second zero block: a complete archive
      return;
    }
    const head = parseHeader(h);
    const size = pax.size !== undefined ? paxSize(pax.size) : head.size;
    if (head.type === "x") {
      // A pax header holds a long path or a large size: a few hundred bytes, never megabytes.
      if (size > PAX_MAX_BYTES) throw new TarError("the archive is damaged (a pax header is too large)");
      pax = parsePax(await r.exact(size));
      await r.exact(padding(size).length);
      continue;
    }
    if (head.type !== "0" && head.type !== "\0")
      throw new TarError(`unexpected entry type "${head.type}" in the archive`);
    const path = pax.path ?? head.path;
    pax = {};
    let consumed = false;
    const body = async function* () {
      consumed = true;
      yield* r.take(size);
    };
    yield { path, size, body };
    if (!consumed) for await (const _ of r.take(size));
    await r.exact(padding(size).length);
  }
}

function parseHeader(h: Uint8Array): { path: string; size: number; type: string } {
  const field = (at: number, len: number) => {
    const bytes = h.subarray(at, at + len);
    const end = bytes.indexOf(0);
    try {
      return decoder.decode(end < 0 ? bytes : bytes.subarray(0, end));
    } catch {
      throw new TarError("the archive is damaged (a header is not tar)");
    }
  };
  const num = (at: number, len: number) => {
    const s = field(at, len).trim();
    if (!/^[0-7]*$/.test(s)) throw new TarError("the archive is damaged (a header is not tar)");
    return s ? Number.parseInt(s, 8) : 0;
  };
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  if (num(148, 8) !== sum) throw new TarError("the archive is damaged (a header checksum does not match)");
  const prefix = field(345, 155);
  const name = field(0, 100);
  return { path: prefix ? `${prefix}/${name}` : name, size: num(124, 12), type: field(156, 1) || "\0" };
}

/** The largest pax header read (its records: a path of at most a few thousand bytes, a size). */
const PAX_MAX_BYTES = 64 * 1024;

/** A pax `size` record's value: decimal digits, else the archive is damaged. */
function paxSize(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new TarError("the archive is damaged (a pax size is not a number)");
  return Number(value);
}

function parsePax(bytes: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new TarError("the archive is damaged (a pax header is not UTF-8)");
  }
  for (const line of text.split("\n")) {
    const m = /^\d+ ([^=]+)=(.*)$/s.exec(line);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}
