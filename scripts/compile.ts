/**
 * `bun build --compile` of ragd for one platform, as Bun's build API: the server, the CLI,
 * the ingestion worker, the OCR thread, the database's copying and checkpoint threads (each
 * an entry point of the same executable, with the files they embed), stamped with the commit
 * and build date (src/version.ts), with only the target's LanceDB native library inside.
 * The dashboard bundle and the word table must be built first (scripts/build.ts).
 */
import { $ } from "bun";
import { mkdtempSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { SERVER_HEAD_CAP_BYTES } from "../src/http/request-head";
import { detectorTables } from "./detector-tables";
import { type CompressedNative, type Compression, compressedNative, lanceNative, lanceVersion } from "./lancedb-native";
import type { Platform } from "./platforms";

const root = join(import.meta.dir, "..");
const ENTRIES = [
  "main.ts",
  "cli/run.ts",
  "ingest/run/worker.ts",
  "ingest/ocr/thread.ts",
  "backup/vacuum-worker.ts",
  "db/checkpoint-worker.ts",
].map((f) => join(root, "src", f));

export interface BuildStamp {
  commit: string;
  date: string;
}

export type Compiled = { outfile: string; notes: string[] } | { skip: string };

/**
 * Compiles ragd for `platform` into `outfile` (written beside it and renamed, so that a
 * running copy is never overwritten in place), or says why it cannot. `compression` is how
 * hard the native library inside is compressed (scripts/lancedb-native.ts).
 */
export async function compileRagd(
  platform: Platform,
  outfile: string,
  stamp: BuildStamp,
  compression: Compression = "small",
): Promise<Compiled> {
  const native = await lanceNative(platform);
  if ("skip" in native) return native;
  // The executable's name is its main module's name inside (process.argv[1]): the temporary
  // file has the same name, in a directory of its own beside the output.
  const tmpDir = mkdtempSync(join(dirname(outfile), `.${basename(outfile)}-`));
  const tmp = join(tmpDir, basename(outfile));
  const result = await Bun.build({
    entrypoints: ENTRIES,
    root: join(root, "src"),
    target: "bun",
    // --smol: a heap that collects more eagerly (peak memory while ingesting is what users
    // notice); --max-http-header-size: Bun's own cap on the request head, raised above ragd's
    // limits so that an oversized URL or header gets ragd's error body, not Bun's empty 431;
    // no bunfig.toml from the working directory may change how the binary runs.
    compile: {
      target: platform.bunTarget,
      outfile: tmp,
      execArgv: ["--smol", `--max-http-header-size=${SERVER_HEAD_CAP_BYTES}`],
      autoloadBunfig: false,
    },
    minify: { syntax: true, whitespace: true },
    sourcemap: "none",
    // JavaScriptCore's bytecode beside each entry point's code: a start no longer parses the
    // server's JavaScript (about 250 ms less CPU to the first /healthz, 24.6 MB more in the
    // executable, 11.4 MB in the archive; docs/notes/2026-12-06-release.md). Bytecode
    // needs the ES module output.
    bytecode: true,
    format: "esm",
    define: { RAGD_BUILD: JSON.stringify(stamp) },
    loader: { ".zst": "file" },
    plugins: [onlyThisNative(await compressedNative(native.path, compression), platform), await detectorTables()],
  });
  if (!result.success) {
    rmSync(tmpDir, { recursive: true, force: true });
    throw new AggregateError(result.logs, `compiling for ${platform.name} failed`);
  }
  renameSync(tmp, outfile);
  rmSync(tmpDir, { recursive: true, force: true });
  return { outfile, notes: native.note ? [native.note] : [] };
}

/**
 * LanceDB's loader (`@lancedb/lancedb/dist/native.js`) requires, by the running machine's
 * type, one of fourteen native packages and runs `ldd` to tell musl from glibc. In the
 * executable the machine type is known at build time: the loader becomes a load of the
 * target's library, stripped and compressed, the only one embedded, which the first start
 * writes out into a private cache (src/vectors/native-library.ts).
 */
function onlyThisNative(native: CompressedNative, platform: Platform): Bun.BunPlugin {
  const loader = join(root, "src", "vectors", "native-library.ts");
  const lib = `{ compressed: require(${JSON.stringify(native.compressed)}), sha256: ${JSON.stringify(native.sha256)}, size: ${native.size}, name: ${JSON.stringify(`lancedb-${lanceVersion()}-${platform.lance}`)} }`;
  return {
    name: "ragd-lancedb-native",
    setup(build) {
      build.onLoad({ filter: /[\\/]@lancedb[\\/]lancedb[\\/]dist[\\/]native\.js$/ }, () => ({
        contents: `module.exports = require(${JSON.stringify(loader)}).loadEmbeddedLibrary(${lib});\n`,
        loader: "js",
      }));
    },
  };
}

/** The commit (with "-dirty" when tracked files have changes) and the build time. */
export async function buildStamp(): Promise<BuildStamp> {
  const head = await $`git rev-parse --short=12 HEAD`.cwd(root).nothrow().quiet();
  const dirty = await $`git status --porcelain --untracked-files=no`.cwd(root).nothrow().quiet();
  const commit =
    head.exitCode === 0 ? head.stdout.toString().trim() + (dirty.stdout.toString().trim() ? "-dirty" : "") : "unknown";
  // SOURCE_DATE_EPOCH: the reproducible-builds convention for a fixed build time.
  const epoch = process.env.SOURCE_DATE_EPOCH;
  const when = epoch ? new Date(Number(epoch) * 1000) : new Date();
  return { commit, date: when.toISOString().replace(/\.\d{3}Z$/, "Z") };
}
