/** Images of text (PNG, JPEG, TIFF, WebP): recognised by OCR (docs/API.md, "OCR"). */
import { ExtractionError } from "./errors";
import { checkPixels, type Ocr } from "./ocr";

export type ImageFormat = "png" | "jpeg" | "tiff" | "webp";

const LABEL: Record<ImageFormat, string> = { png: "PNG", jpeg: "JPEG", tiff: "TIFF", webp: "WebP" };

/** The image format the bytes start as, if OCR reads it. */
export function imageFormat(b: Uint8Array): ImageFormat | null {
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return "png";
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "jpeg";
  if (
    (b[0] === 0x49 && b[1] === 0x49 && b[2] === 42 && b[3] === 0) ||
    (b[0] === 0x4d && b[1] === 0x4d && b[2] === 0 && b[3] === 42)
  )
    return "tiff";
  if (ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 4) === "WEBP") return "webp";
  return null;
}

/** Recognises the text of an image file; a TIFF's first page only. */
export async function extractImage(bytes: Uint8Array, ocr: Ocr | undefined): Promise<{ text: string; pages: number }> {
  const format = imageFormat(bytes)!;
  if (!ocr) throw new ExtractionError(`${LABEL[format]} images are read by OCR, which is not available here`);
  const size = imageSize(bytes, format);
  if (!size) throw new ExtractionError(`content is not a valid ${LABEL[format]} image`);
  checkPixels(size.width, size.height, `the ${LABEL[format]} image`);
  ocr.progress(0, 1);
  const exif = format === "jpeg" ? jpegOrientation(bytes) : undefined;
  const text = await ocr.recognize(new Uint8Array(bytes), "the image", { exif });
  ocr.progress(1, 1);
  return { text, pages: 1 };
}

/** Width and height from the file's header, or null when the header is not readable. */
export function imageSize(b: Uint8Array, format: ImageFormat): { width: number; height: number } | null {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  try {
    if (format === "png") return { width: v.getUint32(16), height: v.getUint32(20) };
    if (format === "webp") return webpSize(b, v);
    if (format === "jpeg") return jpegSize(b, v);
    return tiffSize(v);
  } catch {
    return null; // read past the end: a truncated header
  }
}

function jpegSize(b: Uint8Array, v: DataView): { width: number; height: number } | null {
  for (let i = 2; i + 9 < b.length; ) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1]!;
    // SOF0..SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: v.getUint16(i + 5), width: v.getUint16(i + 7) };
    i += 2 + v.getUint16(i + 2);
  }
  return null;
}

/**
 * The EXIF orientation of a JPEG (1–8; 1 is upright), as cameras and phones record a
 * photo taken sideways: tag 0x0112 of the first IFD in the APP1 "Exif" segment.
 */
export function jpegOrientation(b: Uint8Array): number | undefined {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  try {
    for (let i = 2; i + 4 < b.length && b[i] === 0xff; i += 2 + v.getUint16(i + 2)) {
      const marker = b[i + 1]!;
      if (marker === 0xda) return undefined; // image data: no EXIF before it
      if (marker !== 0xe1 || ascii(b, i + 4, 6) !== "Exif\0\0") continue;
      const tiff = i + 10;
      const le = b[tiff] === 0x49;
      const ifd = tiff + v.getUint32(tiff + 4, le);
      for (let k = 0, n = v.getUint16(ifd, le); k < n; k++) {
        const at = ifd + 2 + k * 12;
        if (v.getUint16(at, le) !== 0x0112) continue;
        const value = v.getUint16(at + 8, le);
        return value >= 1 && value <= 8 ? value : undefined;
      }
      return undefined;
    }
  } catch {} // a truncated segment: read it as upright
  return undefined;
}

function webpSize(b: Uint8Array, v: DataView): { width: number; height: number } | null {
  const chunk = ascii(b, 12, 4);
  if (chunk === "VP8X")
    return { width: 1 + (v.getUint32(24, true) & 0xffffff), height: 1 + (v.getUint32(27, true) & 0xffffff) };
  if (chunk === "VP8 ") return { width: v.getUint16(26, true) & 0x3fff, height: v.getUint16(28, true) & 0x3fff };
  if (chunk === "VP8L") {
    const bits = v.getUint32(21, true);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  return null;
}

function tiffSize(v: DataView): { width: number; height: number } | null {
  const le = v.getUint8(0) === 0x49;
  const ifd = v.getUint32(4, le);
  const count = v.getUint16(ifd, le);
  let width = 0;
  let height = 0;
  for (let k = 0; k < count; k++) {
    const at = ifd + 2 + k * 12;
    const tag = v.getUint16(at, le);
    const short = v.getUint16(at + 2, le) === 3;
    const value = short ? v.getUint16(at + 8, le) : v.getUint32(at + 8, le);
    if (tag === 256) width = value;
    if (tag === 257) height = value;
  }
  return width && height ? { width, height } : null;
}

const ascii = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n));
