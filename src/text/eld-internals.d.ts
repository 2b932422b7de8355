/**
 * eld's own modules that src/text/eld-data.ts reads, reached through the `eld-internals/*`
 * path of tsconfig.json (the package exports only its detector), with their shapes.
 */
declare module "eld-internals/avgScore.js" {
  export const avgScore: Record<string, number>;
}
declare module "eld-internals/dictionary.js" {
  export const dictionary: string[];
}
declare module "eld-internals/regexPatterns.js" {
  export const separators: RegExp;
}
declare module "eld-internals/ngrams/extrasmall.js" {
  /** The package's tables, or (in the executable, scripts/detector-tables.ts) the same packed. */
  export const ngramsData: { type: string; languages: Record<number, string> } & (
    | { ngrams: Record<string, Record<number, number>> }
    | { packed: { keys: string; packed: string } }
  );
}
