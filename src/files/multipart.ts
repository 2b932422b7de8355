/**
 * Streams the one file part of a multipart/form-data request to disk, enforcing
 * the size limit while reading (busboy parses; nothing is buffered whole).
 */
import busboy from "busboy";
import { Readable } from "node:stream";
import { FileError } from "./errors";

export interface ReceivedFile {
  fileName: string;
  size: number;
  mimeType: string;
  /** The first bytes, for type detection. */
  head: Uint8Array;
  /** The text parts sent beside the file (e.g. `metadata`), by name; the first of a name wins. */
  fields: Record<string, string>;
  /** Names of other file parts, which are skipped (a caller may refuse one it expects as text). */
  skippedFiles: string[];
}

/** The longest text part read; longer ones are a 400 rather than silently cut. */
const FIELD_BYTES = 64 * 1024;
const FIELDS = 20;
/** What a form may add to its file's bytes: its text fields, boundaries and part headers. */
export const MULTIPART_OVERHEAD = FIELDS * FIELD_BYTES + 64 * 1024;

/** What a multipart upload needs of its request: the content type (with its boundary) and the body. */
export interface MultipartBody {
  contentType: string | null;
  body: ReadableStream<Uint8Array> | null;
  /** The declared Content-Length, when the client sent one. */
  contentLength?: number;
}

/**
 * Reads the part named `field` and hands it to `save` as a web stream.
 * Fails with a FileError: "not_multipart", "malformed", "missing_part" or "empty".
 */
export async function receiveFile(
  request: MultipartBody,
  field: string,
  save: (body: ReadableStream<Uint8Array>) => Promise<number>,
): Promise<ReceivedFile> {
  const type = request.contentType ?? "";
  if (!type.toLowerCase().startsWith("multipart/form-data")) {
    throw new FileError("not_multipart", `send the file as multipart/form-data with a part named "${field}"`);
  }
  if (!request.body) throw new FileError("missing_part", `the request has no "${field}" part`);
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: { "content-type": type },
      // File names as browsers and curl send them, in UTF-8 (busboy's default reads them as Latin-1).
      defParamCharset: "utf8",
      // A few file parts, so one sent where text was expected is seen (and skipped), not dropped unseen.
      limits: { files: 5, fields: FIELDS, parts: 25, fieldSize: FIELD_BYTES },
    });
  } catch {
    throw new FileError("malformed", "the multipart body is malformed (no boundary)");
  }
  const fields: Record<string, string> = {};
  let fieldProblem: FileError | null = null;
  bb.on("field", (name, value, info) => {
    if (info.valueTruncated) fieldProblem = new FileError("part_too_large", `${name}: the part is longer than 64 KB`);
    else if (!Object.hasOwn(fields, name)) fields[name] = value;
  });
  // Text parts may come after the file: the result waits for the end of the body too.
  const closed = new Promise<void>((resolve, reject) => {
    bb.on("error", () => reject(new FileError("malformed", "the multipart body is malformed")));
    bb.on("close", resolve);
  });
  closed.catch(() => {}); // awaited only once the file is in
  const skippedFiles: string[] = [];
  const file = await receiveFilePart(request, bb, field, save, skippedFiles);
  await closed;
  if (fieldProblem) throw fieldProblem;
  return { ...file, fields, skippedFiles };
}

function receiveFilePart(
  request: MultipartBody,
  bb: busboy.Busboy,
  field: string,
  save: (body: ReadableStream<Uint8Array>) => Promise<number>,
  skippedFiles: string[],
): Promise<Omit<ReceivedFile, "fields" | "skippedFiles">> {
  return new Promise((resolve, reject) => {
    let seen = false;
    let pending: Promise<void> | null = null;
    let file: Readable | null = null;
    const source = Readable.fromWeb(request.body as unknown as import("node:stream/web").ReadableStream);
    bb.on("file", (name, stream, info) => {
      if (name !== field || seen) {
        if (name !== field) skippedFiles.push(name);
        stream.resume();
        return;
      }
      seen = true;
      file = stream;
      let head = new Uint8Array(0);
      stream.on("data", (c: Buffer) => {
        if (head.length < 4096) head = new Uint8Array(Buffer.concat([head, c.subarray(0, 4096 - head.length)]));
      });
      pending = save(Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>).then(
        (size) => {
          if (size === 0) throw new FileError("empty", "the uploaded file is empty");
          resolve({ fileName: cleanFileName(info.filename), size, mimeType: info.mimeType, head });
        },
        (err) => {
          // Over the limit (or the disk full): stop reading the body rather than drain it.
          source.unpipe(bb);
          source.destroy();
          throw err;
        },
      );
      pending.catch(reject);
    });
    bb.on("error", () => reject(new FileError("malformed", "the multipart body is malformed")));
    bb.on("close", () => {
      if (!seen) reject(new FileError("missing_part", `the request has no "${field}" part`));
    });
    source
      .on("error", (err) => {
        // The client hung up mid-file: busboy would wait for the rest forever, so the
        // part ends with the error, and `save` stops and removes what it had written.
        file?.destroy(err);
        bb.destroy(err);
        reject(err);
      })
      .pipe(bb);
  });
}

/**
 * A file name as ragd keeps it: control characters as spaces, trimmed, at most 255
 * characters; "upload" when nothing is left. What an export writes, an import takes.
 */
export function cleanFileName(raw: string | undefined): string {
  const name = (raw ?? "")
    .replace(/\p{Cc}/gu, " ")
    .trim()
    .slice(0, 255)
    .trim();
  return name || "upload";
}
