/**
 * The release's bill of materials and third-party notices.
 *
 * The SBOM is CycloneDX JSON from `@cyclonedx/cyclonedx-npm`, which reads the installed
 * tree (`npm ls`) and needs no network. `--omit dev` keeps the production tree; its
 * `--ignore-npm-errors` is needed because `.npmrc`'s legacy-peer-deps leaves peers that
 * npm ls reports as missing (file-type, an optional peer of elysia). The notices are made
 * from the same components: each package's declared licence and its licence files' text.
 */
import { $ } from "bun";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");

interface Component {
  name: string;
  group?: string;
  version: string;
  licenses?: { license?: { id?: string; name?: string }; expression?: string }[];
  properties?: { name: string; value: string }[];
}

/** Writes the SBOM to `outfile` (CycloneDX 1.6, reproducible, one flat component list). */
export async function writeSbom(outfile: string): Promise<void> {
  const bin = join(root, "node_modules", ".bin", "cyclonedx-npm");
  const r =
    await $`${bin} --omit dev --ignore-npm-errors --flatten-components --spec-version 1.6 --output-format JSON --output-reproducible --output-file ${outfile}`
      .cwd(root)
      .nothrow()
      .quiet();
  if (r.exitCode !== 0 || !existsSync(outfile)) throw new Error(`cyclonedx-npm failed:\n${r.stderr.toString()}`);
}

/** THIRD-PARTY-NOTICES for the packages the SBOM lists: name, version, licence, licence text. */
export function noticesFromSbom(sbomFile: string): string {
  const sbom = JSON.parse(readFileSync(sbomFile, "utf8")) as { components: Component[] };
  const components = [...sbom.components].sort((a, b) => fullName(a).localeCompare(fullName(b)));
  const head = [
    "Third-party software in ragd",
    "",
    "The ragd executable is the Bun runtime (MIT; it contains JavaScriptCore and other parts",
    "under their own licences, among them LGPL-2.1: see Bun's licensing page,",
    "https://bun.com/docs/project/licensing) with the JavaScript packages below bundled into it,",
    "and LanceDB's native library, whose Rust dependencies are listed in",
    "THIRD-PARTY-NOTICES-lancedb-native.html beside this file.",
    "",
    `Packages (${components.length}), from the production dependency tree:`,
    "",
    ...components.map((c) => `  ${fullName(c)}@${c.version}  ${licenceOf(c)}`),
    "",
  ];
  const texts = components.map((c) => {
    const text = licenceText(c);
    const rule = "=".repeat(78);
    return `${rule}\n${fullName(c)}@${c.version}  (${licenceOf(c)})\n${rule}\n${text ?? "(no licence file in the package; its declared licence is above)"}\n`;
  });
  return [...head, ...texts].join("\n");
}

/** LanceDB's own list of the Rust crates in its native library (HTML, as it ships it). */
export function lanceRustNotices(): string {
  return readFileSync(join(root, "node_modules", "@lancedb", "lancedb", "RUST_THIRD_PARTY_LICENSES.html"), "utf8");
}

const fullName = (c: Component) => (c.group ? `${c.group}/${c.name}` : c.name);

function licenceOf(c: Component): string {
  const found = (c.licenses ?? []).map((l) => l.expression ?? l.license?.id ?? l.license?.name).filter(Boolean);
  return found.length ? found.join(" AND ") : "UNKNOWN";
}

/** The text of the package's LICENSE/LICENCE/COPYING/NOTICE files, if it has any. */
function licenceText(c: Component): string | null {
  const path = c.properties?.find((p) => p.name === "cdx:npm:package:path")?.value;
  if (path === undefined) return null;
  const dir = join(root, path);
  if (!existsSync(dir)) return null;
  const files = readdirSync(dir)
    .filter((f) => /^(licen[cs]e|copying|notice)([.-].*)?$/i.test(f))
    .sort();
  if (!files.length) return null;
  return files.map((f) => readFileSync(join(dir, f), "utf8").trim()).join("\n\n");
}
