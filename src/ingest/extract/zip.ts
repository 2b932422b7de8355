/**
 * Reads a zip's central directory without inflating anything, refuses zip bombs from what
 * the directory declares, and inflates one entry at a time with its output capped at the
 * declared size, so a directory that lies cannot make us inflate more than it promised.
 */
import { inflateRawSync } from "node:zlib";
import { ExtractionError, unreadable } from "./errors";

const MB = 1024 * 1024;

/** Limits checked before anything is inflated. */
export const ZIP_LIMITS = {
  entries: 2_000,
  totalBytes: 200 * MB,
  entryBytes: 100 * MB,
  /** Uncompressed:compressed above this, on an entry larger than `ratioMinBytes`, is a bomb. */
  ratio: 200,
  ratioMinBytes: 10 * MB,
};

export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

export type ZipDirectory = Map<string, ZipEntry>;

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const utf8 = new TextDecoder();

/** True when the bytes start like a zip archive (or an empty one). */
export function isZip(b: Uint8Array): boolean {
  return b[0] === 0x50 && b[1] === 0x4b && ((b[2] === 3 && b[3] === 4) || (b[2] === 5 && b[3] === 6));
}

/** Reads the central directory and enforces ZIP_LIMITS; throws ExtractionError on a bomb or a broken zip. */
export function readZipDirectory(bytes: Uint8Array): ZipDirectory {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEndOfDirectory(view);
  const count = view.getUint16(end + 10, true);
  const size = view.getUint32(end + 12, true);
  const offset = view.getUint32(end + 16, true);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff)
    throw refuse("zip64 archives are not supported");
  if (count > ZIP_LIMITS.entries) throw refuse(`${count} entries (limit ${ZIP_LIMITS.entries})`);
  if (offset + size > end) throw new ExtractionError("corrupt zip archive: central directory out of bounds");
  const entries = readEntries(view, offset, offset + size);
  checkSizes([...entries.values()]);
  return entries;
}

function findEndOfDirectory(view: DataView): number {
  const stop = Math.max(0, view.byteLength - 22 - 0xffff);
  for (let i = view.byteLength - 22; i >= stop; i--) {
    if (view.getUint32(i, true) === EOCD) return i;
  }
  throw new ExtractionError("corrupt zip archive: no end of central directory");
}

function readEntries(view: DataView, start: number, end: number): ZipDirectory {
  const entries: ZipDirectory = new Map();
  let at = start;
  while (at + 46 <= end && view.getUint32(at, true) === CENTRAL) {
    if (entries.size >= ZIP_LIMITS.entries) throw refuse(`more than ${ZIP_LIMITS.entries} entries`);
    const nameLength = view.getUint16(at + 28, true);
    const name = utf8.decode(new Uint8Array(view.buffer, view.byteOffset + at + 46, nameLength));
    const entry: ZipEntry = {
      name,
      flags: view.getUint16(at + 8, true),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localOffset: view.getUint32(at + 42, true),
    };
    if (entry.size === 0xffffffff || entry.compressedSize === 0xffffffff)
      throw refuse("zip64 entries are not supported");
    entries.set(name, entry);
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return entries;
}

function checkSizes(entries: ZipEntry[]): void {
  let total = 0;
  for (const e of entries) {
    total += e.size;
    if (e.size > ZIP_LIMITS.entryBytes)
      throw refuse(`entry ${e.name} expands to ${mb(e.size)} (limit ${mb(ZIP_LIMITS.entryBytes)})`);
    const ratio = e.size / Math.max(e.compressedSize, 1);
    if (e.size > ZIP_LIMITS.ratioMinBytes && ratio > ZIP_LIMITS.ratio) {
      throw refuse(`entry ${e.name} has a compression ratio of ${Math.round(ratio)}:1`);
    }
  }
  if (total > ZIP_LIMITS.totalBytes) throw refuse(`expands to ${mb(total)} (limit ${mb(ZIP_LIMITS.totalBytes)})`);
}

/** Inflates one entry, never producing more than the size its directory record declares. */
export function inflateEntry(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  if (entry.flags & 1) throw new ExtractionError(`zip entry ${entry.name} is encrypted`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = entry.localOffset;
  if (at + 30 > bytes.length || view.getUint32(at, true) !== LOCAL) {
    throw new ExtractionError(`corrupt zip archive: bad local header for ${entry.name}`);
  }
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  const data = bytes.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) return data.slice(0, entry.size);
  if (entry.method !== 8)
    throw new ExtractionError(`zip entry ${entry.name} uses unsupported compression ${entry.method}`);
  try {
    return new Uint8Array(inflateRawSync(data, { maxOutputLength: Math.max(entry.size, 1) }));
  } catch (err) {
    const tooLarge = (err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
    if (tooLarge) throw refuse(`entry ${entry.name} inflates beyond its declared ${entry.size} bytes`);
    throw unreadable("zip", err);
  }
}

function refuse(reason: string): ExtractionError {
  return new ExtractionError(`zip archive refused: ${reason}`);
}

function mb(n: number): string {
  return `${(n / MB).toFixed(1)} MB`;
}
