/**
 * The platforms a release is built for: Bun's compile target, LanceDB's native package for
 * the same machine type, and how the archive is packed. scripts/build.ts builds the one this
 * machine runs; scripts/release.ts builds every one it can (docs/operations.md, Releases).
 */

export interface Platform {
  /** `<os>-<arch>[-libc]`, as release archives are named. */
  name: string;
  bunTarget: Bun.Build.CompileTarget;
  /** LanceDB's native package suffix: `@lancedb/lancedb-<lance>`, holding `lancedb.<lance>.node`. */
  lance: string;
  archive: "tar.gz" | "zip";
  executable: string;
}

export const PLATFORMS: readonly Platform[] = [
  { name: "linux-x64", bunTarget: "bun-linux-x64", lance: "linux-x64-gnu", archive: "tar.gz", executable: "ragd" },
  {
    name: "linux-x64-musl",
    bunTarget: "bun-linux-x64-musl",
    lance: "linux-x64-musl",
    archive: "tar.gz",
    executable: "ragd",
  },
  {
    name: "linux-arm64",
    bunTarget: "bun-linux-arm64",
    lance: "linux-arm64-gnu",
    archive: "tar.gz",
    executable: "ragd",
  },
  { name: "darwin-arm64", bunTarget: "bun-darwin-arm64", lance: "darwin-arm64", archive: "tar.gz", executable: "ragd" },
  {
    name: "windows-x64",
    bunTarget: "bun-windows-x64",
    lance: "win32-x64-msvc",
    archive: "zip",
    executable: "ragd.exe",
  },
];

/** The platform by its release name; throws, listing the names, for an unknown one. */
export function platformByName(name: string): Platform {
  const found = PLATFORMS.find((p) => p.name === name);
  if (!found) throw new Error(`unknown platform "${name}"; one of ${PLATFORMS.map((p) => p.name).join(", ")}`);
  return found;
}

/** The platform this process runs on (glibc on Linux: the musl build is asked for by name). */
export function hostPlatform(): Platform {
  const os = process.platform === "win32" ? "windows" : process.platform;
  return platformByName(`${os}-${process.arch}`);
}
