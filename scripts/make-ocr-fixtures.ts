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
  // The same page photographed sideways: pixels turned a quarter left, as a phone stores
  // them, with EXIF orientation 6 (added below) saying to turn them right to view.
  const side = document.createElement("canvas");
  side.width = c.height;
  side.height = c.width;
  const sg = side.getContext("2d")!;
  sg.translate(0, c.width);
  sg.rotate(-Math.PI / 2);
  sg.drawImage(c, 0, 0);
  const sideways: Blob = await new Promise((r) => side.toBlob((b) => r(b!), "image/jpeg", 0.85));
  const rotated = Array.from(new Uint8Array(await sideways.arrayBuffer()));
  const rgba = g.getImageData(0, 0, c.width, c.height).data;
  const gray = Array.from({ length: c.width * c.height }, (_, i) => rgba[i * 4]!);
  return {
    rotated,
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
await Bun.write(join(dir, "page-exif6.jpg"), withOrientation(new Uint8Array(out.rotated), 6));
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

/** A JPEG with an EXIF segment (big-endian, one IFD entry) giving its orientation, right after SOI. */
function withOrientation(jpeg: Uint8Array, orientation: number): Uint8Array {
  const tiffPart = [
    0x4d,
    0x4d,
    0,
    42,
    0,
    0,
    0,
    8,
    0,
    1,
    0x01,
    0x12,
    0,
    3,
    0,
    0,
    0,
    1,
    0,
    orientation,
    0,
    0,
    0,
    0,
    0,
    0,
  ];
  const payload = [0x45, 0x78, 0x69, 0x66, 0, 0, ...tiffPart];
  const app1 = [0xff, 0xe1, (payload.length + 2) >> 8, (payload.length + 2) & 0xff, ...payload];
  return new Uint8Array([...jpeg.subarray(0, 2), ...app1, ...jpeg.subarray(2)]);
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
