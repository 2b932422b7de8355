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
}

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
    bb = busboy({ headers: { "content-type": type }, limits: { files: 1, fields: 20, parts: 25 } });
  } catch {
    throw new FileError("malformed", "the multipart body is malformed (no boundary)");
  }
  return new Promise<ReceivedFile>((resolve, reject) => {
    let seen = false;
    let pending: Promise<void> | null = null;
    let file: Readable | null = null;
    bb.on("file", (name, stream, info) => {
      if (name !== field || seen) {
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
          resolve({ fileName: info.filename || "upload", size, mimeType: info.mimeType, head });
        },
        (err) => {
          stream.resume();
          throw err;
        },
      );
      pending.catch(reject);
    });
    bb.on("error", () => reject(new FileError("malformed", "the multipart body is malformed")));
    bb.on("close", () => {
      if (!seen) reject(new FileError("missing_part", `the request has no "${field}" part`));
    });
    Readable.fromWeb(request.body as unknown as import("node:stream/web").ReadableStream)
      .on("error", (err) => {
        // The client hung up mid-file: busboy would wait for the rest forever, so the
        // part ends with the error, and `save` stops and removes what it had written.
        file?.destroy(err);
        reject(err);
      })
      .pipe(bb);
  });
}
