/**
 * OCR speed and memory on a scanned page: the test picture of known text (test/fixtures/
 * ocr) tiled onto an A4 page at 300 dpi (2480×3508, 2 columns × 12 rows, 72 lines), read
 * by the OCR thread an ingestion worker uses. Prints pages/s after a warm-up page (which
 * also loads the core), the character error rate, and this process's RSS before the
 * thread starts and at its peak (sampled every 20 ms): the difference is what OCR adds to
 * one worker. CPU seconds per page are printed too: on a shared machine they say more
 * than the wall clock.
 *
 *   bun bench/ocr.ts [--pages 3]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { toPnm } from "../src/ingest/extract/ocr";
import { OcrThread } from "../src/ingest/ocr/client";
import { OCR_LINES } from "../test/support/ocr-text";

const { values: args } = parseArgs({ options: { pages: { type: "string", default: "3" } } });
const PAGES = Number(args.pages);
const [W, H, COLS, ROWS] = [2480, 3508, 2, 12];

/** The fixture TIFF's gray pixels (written by scripts/make-ocr-fixtures.ts: PackBits strips of one row). */
async function fixturePixels(): Promise<{ gray: Uint8Array; width: number; height: number }> {
  const b = await Bun.file(join(import.meta.dir, "..", "test", "fixtures", "ocr", "page.tif")).bytes();
  const v = new DataView(b.buffer);
  const tags = new Map<number, number>();
  const ifd = v.getUint32(4, true);
  for (let k = 0; k < v.getUint16(ifd, true); k++) {
    const at = ifd + 2 + k * 12;
    const short = v.getUint16(at + 2, true) === 3;
    tags.set(v.getUint16(at, true), short ? v.getUint16(at + 8, true) : v.getUint32(at + 8, true));
  }
  const [width, height] = [tags.get(256)!, tags.get(257)!];
  const gray = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    let p = v.getUint32(tags.get(273)! + y * 4, true);
    const end = p + v.getUint32(tags.get(279)! + y * 4, true);
    for (let x = y * width; p < end; ) {
      const n = v.getInt8(p++);
      if (n >= 0) for (let i = 0; i <= n; i++) gray[x++] = b[p++]!;
      else if (n !== -128) gray.fill(b[p++]!, x, (x += 1 - n));
    }
  }
  return { gray, width, height };
}

const tile = await fixturePixels();
const page = new Uint8Array(W * H).fill(255);
for (let r = 0; r < ROWS; r++)
  for (let c = 0; c < COLS; c++)
    for (let y = 0; y < tile.height; y++) {
      const at = (100 + r * tile.height + y) * W + 100 + c * (tile.width + 140);
      page.set(tile.gray.subarray(y * tile.width, (y + 1) * tile.width), at);
    }
const pnm = toPnm(page, W, H, 1);

let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
const before = process.memoryUsage().rss;
const thread = new OcrThread();
const signal = new AbortController().signal;
const read = () =>
  thread.run({ image: pnm.slice(), languages: ["eng"], dataDir: "", dpi: 300 }, "page", 600_000, signal);
const warm = performance.now();
const first = await read();
const warmMs = performance.now() - warm;
const start = performance.now();
const cpu = process.cpuUsage();
for (let i = 0; i < PAGES; i++) await read();
const seconds = (performance.now() - start) / 1000;
const used = process.cpuUsage(cpu);
const cpuSeconds = (used.user + used.system) / 1e6;
clearInterval(sampler);
thread.stop();
const expected = Array.from({ length: ROWS * COLS }, () => OCR_LINES).flat();
const mb = (n: number) => `${(n / 2 ** 20).toFixed(0)} MB`;
console.log(`page ${W}×${H} gray, ${ROWS * COLS * OCR_LINES.length} lines of text`);
console.log(`first page (loads the core): ${(warmMs / 1000).toFixed(2)} s`);
console.log(`${PAGES} pages in ${seconds.toFixed(2)} s: ${(PAGES / seconds).toFixed(2)} pages/s`);
console.log(
  `CPU: ${(cpuSeconds / PAGES).toFixed(2)} s per page (${(PAGES / cpuSeconds).toFixed(2)} pages per CPU-second)`,
);
console.log(
  `characters recognised: ${first.replace(/\s/g, "").length} of ${expected.join("").replace(/\s/g, "").length} expected`,
);
console.log(`RSS before OCR ${mb(before)}, peak ${mb(peak)}: OCR adds ${mb(peak - before)} to a worker`);
