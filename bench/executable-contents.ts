/**
 * What a compiled ragd is made of: the Bun runtime, and the files `bun build --compile`
 * embedded in the ELF section `.bun` (the module graph), grouped as the release notes report
 * them. Reads the graph's table of files: a list of 52-byte records (name, contents, source
 * map, bytecode and two more offset/length pairs, then four flag bytes) that Bun 1.4 writes
 * before its trailer; another layout is reported as unknown rather than guessed.
 *
 *   bun bench/executable-contents.ts [dist/ragd]
 */
import { openSync, readSync, statSync } from "node:fs";

export interface Part {
  group: string;
  bytes: number;
}

const TRAILER = "\n---- Bun! ----\n";
const RECORD = 52;

/** The runtime's bytes and each embedded file, grouped; null when the file is not a Bun ELF executable. */
export function executableContents(path: string): Part[] | null {
  const fd = openSync(path, "r");
  const read = (offset: number, length: number) => {
    const b = Buffer.alloc(length);
    readSync(fd, b, 0, length, offset);
    return b;
  };
  const section = bunSection(read);
  if (!section) return null;
  // The section: the graph's length (u64), then the graph, which ends with its offsets and the trailer.
  const graphStart = section.offset + 8;
  const graphLength = Number(read(section.offset, 8).readBigUInt64LE());
  const tail = read(graphStart + graphLength - TRAILER.length - 32, 32 + TRAILER.length);
  if (tail.subarray(32).toString() !== TRAILER) return null;
  const modulesOffset = tail.readUInt32LE(8);
  const modulesLength = tail.readUInt32LE(12);
  if (modulesLength % RECORD !== 0) return null;
  const table = read(graphStart + modulesOffset, modulesLength);
  const parts: Part[] = [{ group: "Bun runtime", bytes: statSync(path).size - section.size }];
  for (let at = 0; at < modulesLength; at += RECORD) {
    const name = read(graphStart + table.readUInt32LE(at), table.readUInt32LE(at + 4)).toString();
    let bytes = 0;
    for (let pair = 1; pair < 6; pair++) bytes += table.readUInt32LE(at + pair * 8 + 4);
    parts.push({ group: groupOf(name), bytes });
  }
  parts.push({
    group: "other (graph's tables, alignment)",
    bytes: section.size - parts.slice(1).reduce((s, p) => s + p.bytes, 0),
  });
  return merge(parts);
}

/** The `.bun` section's file offset and size, from the ELF64 section headers. */
function bunSection(read: (offset: number, length: number) => Buffer): { offset: number; size: number } | null {
  const header = read(0, 64);
  if (header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2) return null;
  const shoff = Number(header.readBigUInt64LE(0x28));
  const shentsize = header.readUInt16LE(0x3a);
  const shnum = header.readUInt16LE(0x3c);
  const headers = read(shoff, shentsize * shnum);
  const strtab = headers.subarray(header.readUInt16LE(0x3e) * shentsize);
  const names = read(Number(strtab.readBigUInt64LE(24)), Number(strtab.readBigUInt64LE(32)));
  for (let i = 0; i < shnum; i++) {
    const h = headers.subarray(i * shentsize);
    const start = h.readUInt32LE(0);
    const name = names.subarray(start, names.indexOf(0, start)).toString();
    if (name === ".bun") return { offset: Number(h.readBigUInt64LE(24)), size: Number(h.readBigUInt64LE(32)) };
  }
  return null;
}

function groupOf(name: string): string {
  if (/\.node$|lancedb.*\.zst$/.test(name)) return "LanceDB native library";
  if (/tesseract|traineddata/.test(name)) return "OCR engine (WebAssembly) and English data";
  if (/word-vectors/.test(name)) return "builtin-glove word table";
  if (/\/app-[\w]+\.(js|css)$/.test(name)) return "dashboard";
  if (/swagger-ui/.test(name)) return "API reference page (Swagger UI)";
  return "server JavaScript and its bytecode (bundled packages, migrations)";
}

function merge(parts: Part[]): Part[] {
  const by = new Map<string, number>();
  for (const p of parts) by.set(p.group, (by.get(p.group) ?? 0) + p.bytes);
  return [...by].map(([group, bytes]) => ({ group, bytes })).sort((a, b) => b.bytes - a.bytes);
}

/** The contents as a Markdown table, in MB (10^6 bytes) and shares of the whole. */
export function contentsTable(parts: Part[]): string {
  const total = parts.reduce((s, p) => s + p.bytes, 0);
  const rows = parts.map(
    (p) => `| ${p.group} | ${(p.bytes / 1e6).toFixed(1)} | ${((100 * p.bytes) / total).toFixed(1)} % |`,
  );
  return ["| part | MB | share |", "|---|---:|---:|", ...rows, `| total | ${(total / 1e6).toFixed(1)} | |`].join("\n");
}

if (import.meta.main) {
  const path = process.argv[2] ?? "dist/ragd";
  const parts = executableContents(path);
  console.log(parts ? contentsTable(parts) : `${path}: not a Bun-compiled ELF executable this script can read`);
}
