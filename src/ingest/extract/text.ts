/** Bytes to a string: byte-order marks, the charset a content type names, UTF-8 otherwise. */

/** Decodes text, honouring a BOM first, then `charset=` from the content type; drops the BOM. */
export function decodeText(bytes: Uint8Array, contentType?: string): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return decode(bytes.subarray(3), "utf-8");
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return decode(bytes.subarray(2), "utf-16le");
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return decode(bytes.subarray(2), "utf-16be");
  return decode(bytes, charsetOf(contentType) ?? sniffMetaCharset(bytes) ?? "utf-8");
}

/** True when the bytes look binary: a NUL in the first 8 KB, unless a UTF-16 BOM explains it. */
export function looksBinary(bytes: Uint8Array): boolean {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return false;
  return bytes.subarray(0, 8192).includes(0);
}

function decode(bytes: Uint8Array, charset: string): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset, { ignoreBOM: true });
  } catch {
    decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  }
  return decoder.decode(bytes);
}

function charsetOf(contentType?: string): string | undefined {
  return /;\s*charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? "")?.[1];
}

/** `<meta charset=…>` or an http-equiv content type in the first 1 KB of an HTML page. */
function sniffMetaCharset(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
}
