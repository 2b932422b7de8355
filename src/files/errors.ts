/**
 * The one error type of the file store and the multipart reader. It knows nothing
 * of HTTP: each code is stable, and src/http/errors.ts gives it its status.
 */
export type FileErrorCode =
  /** More bytes than the limit (the partial file is gone). */
  | "too_large"
  /** The request is not multipart/form-data. */
  | "not_multipart"
  /** The multipart body cannot be parsed. */
  | "malformed"
  /** The expected file part is not there. */
  | "missing_part"
  /** The file part has no bytes. */
  | "empty"
  /** A text part (such as metadata) is over its limit. */
  | "part_too_large";

/** A file that cannot be received or stored, with a message a person can act on. */
export class FileError extends Error {
  constructor(
    readonly code: FileErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "FileError";
  }
}
