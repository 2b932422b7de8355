/**
 * Builds the single executable `dist/ragd` for this machine: the dashboard bundle and the
 * word-vector table first (both are embedded), then the compile (scripts/compile.ts), stamped
 * with the commit and build date that `ragd version` prints.
 *
 *   bun scripts/build.ts                      → dist/ragd
 *   bun scripts/build.ts --quick              → the same, its native library compressed in
 *                                               seconds instead of minutes, 17 MB larger (npm test)
 */
import { $ } from "bun";
import { join } from "node:path";
import { buildStamp, compileRagd } from "./compile";
import { hostPlatform } from "./platforms";

const root = join(import.meta.dir, "..");

/** The dashboard bundle and the word table, which the executable embeds. */
export async function buildEmbeddedFiles(): Promise<void> {
  await $`bun ${join(root, "scripts", "build-dashboard.ts")}`.cwd(root);
  // Fails, saying what to install, when the word vectors' source package is missing.
  await $`bun ${join(root, "scripts", "build-word-vectors.ts")}`.cwd(root);
}

if (import.meta.main) {
  await buildEmbeddedFiles();
  const out = join(root, "dist", "ragd");
  const compression = process.argv.includes("--quick") ? "quick" : "small";
  const built = await compileRagd(hostPlatform(), out, await buildStamp(), compression);
  if ("skip" in built) throw new Error(built.skip);
  for (const note of built.notes) console.log(note);
  console.log(`built ${out}`);
}
