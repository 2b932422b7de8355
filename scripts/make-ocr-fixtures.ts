/**
 * Writes the OCR test images (test/fixtures/ocr): one text drawn by a browser's canvas,
 * saved as PNG, JPEG, WebP and TIFF. Run once by hand (`bun scripts/make-ocr-fixtures.ts`,
 * needs Chromium); the tests read the committed files and know the text below.
 */
import { join } from "node:path";
import { chromium } from "playwright-core";
import { OCR_LINES } from "../test/support/ocr-text";

const dir = join(import.meta.dir, "..", "test", "fixtures", "ocr");
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium" });
const page = await browser.newPage();
const out = await page.evaluate(async (lines) => {
  const c = document.createElement("canvas");
  c.width = 1000;
  c.height = 60 + 70 * lines.length;
  const g = c.getContext("2d")!;
  g.fillStyle = "#fff";
  g.fillRect(0, 0, c.width, c.height);
  g.fillStyle = "#000";
  g.font = "32px serif";
  for (const [i, line] of lines.entries()) g.fillText(line, 20, 70 + 70 * i);
  const encode = async (type: string) => {
    const blob: Blob = await new Promise((r) => c.toBlob((b) => r(b!), type, 0.85));
    return Array.from(new Uint8Array(await blob.arrayBuffer()));
  };
  const rgba = g.getImageData(0, 0, c.width, c.height).data;
  const gray = Array.from({ length: c.width * c.height }, (_, i) => rgba[i * 4]!);
  return {
    png: await encode("image/png"),
    jpg: await encode("image/jpeg"),
    webp: await encode("image/webp"),
    gray,
    width: c.width,
    height: c.height,
  };
}, OCR_LINES);
await browser.close();
for (const ext of ["png", "jpg", "webp"] as const) await Bun.write(join(dir, `page.${ext}`), new Uint8Array(out[ext]));
await Bun.write(join(dir, "page.tif"), tiff(new Uint8Array(out.gray), out.width, out.height));
console.log(`wrote ${dir}`);

/** A grayscale TIFF, one PackBits-compressed strip per row (little-endian). */
function tiff(gray: Uint8Array, width: number, height: number): Uint8Array {
  const rows = Array.from({ length: height }, (_, y) => packBits(gray.subarray(y * width, (y + 1) * width)));
  const tags: [number, number, number][] = [
    [256, 4, width],
    [257, 4, height],
    [258, 3, 8],
    [259, 3, 32773],
    [262, 3, 1],
    [273, 4, 0],
    [277, 3, 1],
    [278, 4, 1],
    [279, 4, 0],
  ];
  const ifdAt = 8;
  const ifdSize = 2 + tags.length * 12 + 4;
  const offsetsAt = ifdAt + ifdSize;
  const countsAt = offsetsAt + height * 4;
  let dataAt = countsAt + height * 4;
  const total = dataAt + rows.reduce((n, r) => n + r.length, 0);
  const buf = new Uint8Array(total);
  const v = new DataView(buf.buffer);
  buf.set([0x49, 0x49, 42, 0]);
  v.setUint32(4, ifdAt, true);
  v.setUint16(ifdAt, tags.length, true);
  tags.forEach(([tag, type, value], k) => {
    const at = ifdAt + 2 + k * 12;
    const many = (tag === 273 || tag === 279) && height > 1;
    v.setUint16(at, tag, true);
    v.setUint16(at + 2, type, true);
    v.setUint32(at + 4, tag === 273 || tag === 279 ? height : 1, true);
    if (many) v.setUint32(at + 8, tag === 273 ? offsetsAt : countsAt, true);
    else if (type === 3) v.setUint16(at + 8, value, true);
    else v.setUint32(at + 8, value, true);
  });
  rows.forEach((r, y) => {
    v.setUint32(offsetsAt + y * 4, dataAt, true);
    v.setUint32(countsAt + y * 4, r.length, true);
    buf.set(r, dataAt);
    dataAt += r.length;
  });
  return buf;
}

function packBits(row: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < row.length; ) {
    let run = 1;
    while (i + run < row.length && run < 128 && row[i + run] === row[i]) run++;
    if (run > 1) {
      out.push(257 - run, row[i]!);
      i += run;
      continue;
    }
    let lit = 1;
    while (i + lit < row.length && lit < 128 && row[i + lit] !== row[i + lit - 1]) lit++;
    out.push(lit - 1, ...row.subarray(i, i + lit));
    i += lit;
  }
  return new Uint8Array(out);
}
