/**
 * Builds the single executable `dist/ragd`: the dashboard bundle and the word-vector
 * table first (both are embedded), then `bun build --compile` of src/main.ts with
 * everything inside.
 */
import { $ } from "bun";
import { join } from "node:path";
import { SERVER_HEAD_CAP_BYTES } from "../src/http/request-head";

const root = join(import.meta.dir, "..");
const out = join(root, "dist", "ragd");

await $`bun ${join(root, "scripts", "build-dashboard.ts")}`.cwd(root);
// Fails, saying what to install, when the word vectors' source package is missing.
await $`bun ${join(root, "scripts", "build-word-vectors.ts")}`.cwd(root);
// The ingestion worker is a second entry point, and the OCR thread (which an ingestion worker
// starts) a third, the database's copying and checkpoint threads two more: Bun bundles them
// into the same executable, with the files they embed.
// --smol: a heap that collects more eagerly (peak memory while ingesting is what users notice);
// --max-http-header-size: Bun's own cap on the request head, raised above ragd's limits so
// that an oversized URL or header gets ragd's error body, not Bun's empty 431;
// no bunfig.toml from the working directory may change how the binary runs.
const execArgv = `--smol --max-http-header-size=${SERVER_HEAD_CAP_BYTES}`;
await $`bun build --compile --compile-exec-argv=${execArgv} --no-compile-autoload-bunfig --minify-syntax --minify-whitespace --sourcemap=none ${join(root, "src", "main.ts")} ${join(root, "src", "cli", "run.ts")} ${join(root, "src", "ingest", "worker.ts")} ${join(root, "src", "ingest", "ocr", "thread.ts")} ${join(root, "src", "backup", "vacuum-worker.ts")} ${join(root, "src", "db", "checkpoint-worker.ts")} --outfile ${out}`.cwd(
  root,
);
console.log(`built ${out}`);
