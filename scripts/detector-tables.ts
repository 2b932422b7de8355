/**
 * The language detector's tables as the executable carries them: `eld/extrasmall`'s
 * n-grams packed into two strings and read in place (src/text/eld-tables.ts), in place
 * of the package's object literal of 49,553 objects. Each thread that detects
 * (each ingestion worker, the server for queries) then spends about 0.01 s of CPU on
 * them where it spent 0.17 s parsing them as JSON, and a few hundred kilobytes of heap
 * instead of 27 MB (docs/notes/2026-12-06-languages-figures.md).
 */
import { join } from "node:path";
import { packNgrams, type Ngrams } from "../src/text/eld-tables";

const root = join(import.meta.dir, "..");

/** The bundler plugin that swaps eld's table module for its packed form. */
export async function detectorTables(): Promise<Bun.BunPlugin> {
  const file = Bun.resolveSync("eld/extrasmall", root).replace(
    /entries[\\/]static\.extrasmall\.js$/,
    "ngrams/extrasmall.js",
  );
  const { ngramsData } = (await import(file)) as { ngramsData?: { ngrams?: Ngrams } };
  if (!ngramsData?.ngrams) throw new Error(`no language detector tables in ${file}`);
  const contents = packedModule(ngramsData as { ngrams: Ngrams });
  return {
    name: "ragd-detector-tables",
    setup(build) {
      build.onLoad({ filter: /[\\/]eld[\\/]src[\\/]ngrams[\\/]extrasmall\.js$/ }, () => ({ contents, loader: "js" }));
    },
  };
}

/** The source of a module exporting `ngramsData` as eld's does, its n-grams packed (src/text/eld-internals.d.ts). */
function packedModule(data: { ngrams: Ngrams }): string {
  const { ngrams, ...rest } = data;
  return `export const ngramsData = ${JSON.stringify({ ...rest, packed: packNgrams(ngrams) })};\n`;
}
