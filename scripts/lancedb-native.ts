/**
 * LanceDB's native library for one platform, ready to embed: the `.node` file of
 * `@lancedb/lancedb-<platform>` at exactly the version of `@lancedb/lancedb` installed
 * (the JavaScript and the native code must match), with its symbol table stripped.
 *
 * The host's package is in node_modules after `npm install`; another platform's is fetched
 * with `npm pack` into dist/cache/. When that version is not published for the platform
 * (or there is no network), the answer is a reason to skip it, never another version.
 */
import { $ } from "bun";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Platform } from "./platforms";

const root = join(import.meta.dir, "..");
const cache = join(root, "dist", "cache");

export type NativeModule = { path: string; stripped: boolean; note?: string } | { skip: string };

/** The installed `@lancedb/lancedb` version: the one every native package must have. */
export function lanceVersion(): string {
  return JSON.parse(readFileSync(join(root, "node_modules", "@lancedb", "lancedb", "package.json"), "utf8")).version;
}

/** The embeddable `.node` for `platform`, or why there is none. */
export async function lanceNative(platform: Platform): Promise<NativeModule> {
  const version = lanceVersion();
  const file = `lancedb.${platform.lance}.node`;
  const source = installedNative(platform, version) ?? (await packedNative(platform, version));
  if ("skip" in source) return source;
  mkdirSync(cache, { recursive: true });
  const out = join(cache, `lancedb-${version}-${platform.lance}.stripped.node`);
  if (existsSync(out)) return { path: out, stripped: true };
  // Written beside, then renamed: several builds may run at once on one checkout.
  const tmp = `${out}.${process.pid}.tmp`;
  const strip = await $`strip --strip-unneeded -o ${tmp} ${source.path}`.nothrow().quiet();
  if (strip.exitCode !== 0) {
    // Mach-O and PE files, or a strip without this machine type: embedded as published.
    return { path: source.path, stripped: false, note: `${file} embedded unstripped (strip: ${firstLine(strip)})` };
  }
  renameSync(tmp, out);
  return { path: out, stripped: true };
}

/** The library as the executable embeds it: zstd, written once beside it in dist/cache/. */
export interface CompressedNative {
  compressed: string;
  sha256: string;
  size: number;
}

/**
 * How hard to compress. `small`, for every build people run: zstd level 19 with a 128 MB
 * window (`--long=27`, which src/vectors/native-library.ts allows when decompressing),
 * 155.5 → 38.7 MB for linux-x64 in about 3 minutes of CPU, once per library. `quick`, for
 * the test suite's build on a fresh clone: level 3 (55.9 MB) in seconds; the executable
 * behaves the same, only larger.
 */
export type Compression = "small" | "quick";

/** The library zstd-compressed at `compression`'s level, written once beside it in dist/cache/. */
export async function compressedNative(path: string, compression: Compression = "small"): Promise<CompressedNative> {
  const level = compression === "small" ? 19 : 3;
  const bytes = readFileSync(path);
  const sha256 = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  const out = `${path}.${sha256.slice(0, 16)}.${level}.zst`;
  if (!existsSync(out)) {
    const tmp = `${out}.${process.pid}.tmp`;
    // Without the `zstd` command, Bun's own (at level 19: 41.6 MB, slower still).
    const cli = await $`zstd -q -${level} --long=27 -T0 -f ${path} -o ${tmp}`.nothrow().quiet();
    if (cli.exitCode !== 0) writeFileSync(tmp, Bun.zstdCompressSync(bytes, { level }));
    renameSync(tmp, out);
  }
  return { compressed: out, sha256, size: bytes.length };
}

function installedNative(platform: Platform, version: string): { path: string } | null {
  const dir = join(root, "node_modules", "@lancedb", `lancedb-${platform.lance}`);
  if (!existsSync(join(dir, "package.json"))) return null;
  if (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version !== version) return null;
  return { path: join(dir, `lancedb.${platform.lance}.node`) };
}

/** `npm pack` of the platform's package at `version` into dist/cache/, unpacked. */
async function packedNative(platform: Platform, version: string): Promise<{ path: string } | { skip: string }> {
  const name = `@lancedb/lancedb-${platform.lance}@${version}`;
  const dir = join(cache, `lancedb-${version}-${platform.lance}`);
  const node = join(dir, "package", `lancedb.${platform.lance}.node`);
  if (existsSync(node)) return { path: node };
  mkdirSync(dir, { recursive: true });
  const pack = await $`npm pack ${name} --pack-destination ${dir} --json`.cwd(dir).nothrow().quiet();
  if (pack.exitCode !== 0) return { skip: `LanceDB's native package ${name} could not be fetched: ${firstLine(pack)}` };
  const tarball = JSON.parse(pack.stdout.toString())[0].filename as string;
  await $`tar -xzf ${join(dir, tarball)} -C ${dir}`.quiet();
  return existsSync(node) ? { path: node } : { skip: `${name} holds no lancedb.${platform.lance}.node` };
}

function firstLine(r: { stderr: Buffer; stdout: Buffer }): string {
  const text = `${r.stderr.toString()}\n${r.stdout.toString()}`;
  const line = text.split("\n").find((l) => /\S/.test(l) && !/^npm (error|ERR!) (code|A complete log)/.test(l));
  return (line ?? "no message").replace(/^npm (error|ERR!) /, "").trim();
}
