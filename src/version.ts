/**
 * ragd's version, from package.json (bundled into the binary), and what the build stamped
 * beside it: the commit and the build date. scripts/compile.ts defines `RAGD_BUILD` in the
 * executable; a run from source has no stamp and asks git for the commit instead.
 */
import pkg from "../package.json" with { type: "json" };

export const version: string = pkg.version;

/** The build's stamp: `RAGD_BUILD` is replaced by an object literal in the compiled binary. */
declare const RAGD_BUILD: { commit: string; date: string } | undefined;

export interface BuildInfo {
  version: string;
  /** The commit the executable was built from (with "-dirty" when the tree had changes), or "unknown". */
  commit: string;
  /** When the executable was built (ISO 8601, UTC), or "source" for a run from the checkout. */
  date: string;
  bun: string;
  platform: string;
}

/** Version, commit, build date, Bun's version and the platform this process runs on. */
export function buildInfo(): BuildInfo {
  const stamp = typeof RAGD_BUILD === "undefined" ? undefined : RAGD_BUILD;
  return {
    version,
    commit: stamp?.commit ?? sourceCommit(),
    date: stamp?.date ?? "source",
    bun: Bun.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/** The checkout's commit, for a run from source: "unknown" without git or outside a repository. */
function sourceCommit(): string {
  try {
    const p = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: import.meta.dir, stderr: "ignore" });
    const commit = p.exitCode === 0 ? p.stdout.toString().trim() : "";
    return commit || "unknown";
  } catch {
    return "unknown"; // no git on this machine
  }
}

/** `ragd version`'s text: the version on the first line (scripts read it), then the rest. */
export function versionText(info: BuildInfo = buildInfo()): string {
  return [
    `ragd ${info.version}`,
    `commit    ${info.commit}`,
    `built     ${info.date}`,
    `bun       ${info.bun}`,
    `platform  ${info.platform}`,
  ].join("\n");
}
