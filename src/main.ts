/**
 * Entry point. `ragd version` answers here, before the rest is loaded (it is what scripts
 * and probes call: about 1 s of loading saved). `ragd serve` first makes sure it runs with a
 * server's allocator settings (tools/allocator.ts: it may replace itself); then argv →
 * command (cli/run.ts). The compiled binary holds cli/run.ts as an entry point of its own,
 * loaded by its path only now: a restart then costs the start of this small file, not the
 * parsing of the rest.
 */
import { restartWithServerAllocator } from "./tools/allocator";
import { versionText } from "./version";

const command = process.argv[2];
if (command === "version" || command === "--version") {
  console.log(versionText());
  process.exit(0);
}
restartWithServerAllocator();
const compiled = import.meta.url.includes("$bunfs");
const run = compiled ? "./cli/run.ts" : "./cli/run";
await import(/* the path is a value: the bundler leaves it to be loaded at run time */ run);
