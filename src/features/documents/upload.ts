/**
 * The multipart form of PUT /api/rag/documents/{externalId}: a `file` part, and
 * optional `metadata` (JSON) and `name` parts. The file streams through the shared
 * multipart reader into files/.tmp, hashed as it goes: the same file sent again is
 * recognised and embeds nothing, and the upsert moves a new one into place.
 */
import { rmSync } from "node:fs";
import type { Metadata } from "../../core/metadata";
import { MULTIPART_OVERHEAD, receiveFile } from "../../files/multipart";
import type { DiskFileStore } from "../../files/disk-store";
import { AppError } from "../../http/errors";
import { detectKind } from "../../ingest/extract/detect";
import { ExtractionError } from "../../ingest/extract/errors";
import type { UpsertPlan } from "../../ingest/upsert";
import { scrubMessage } from "../../tools/scrub";
import { checkMetadata, type ItemContext } from "./input";

/** A received file, written to a temporary path, with what the form said of it. */
export interface ReceivedDocumentFile {
  tempPath: string;
  fileName: string;
  fileSize: number;
  hash: string;
  name?: string;
  metadata?: Metadata;
}

const field = (name: string, message: string) =>
  new AppError("invalid_request", `${name}: ${message}`, [{ field: name, message }]);

/** Reads the form, checks the file's type and the metadata and name parts; the bytes wait in a temporary file. */
export async function receiveDocumentFile(
  request: Request,
  files: DiskFileStore,
  maxBytes: number,
): Promise<ReceivedDocumentFile> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > maxBytes + MULTIPART_OVERHEAD)
    throw new AppError("payload_too_large", `files larger than ${maxBytes} bytes are not accepted`);
  let temp: { path: string; size: number; hash: string } | undefined;
  try {
    const form = { contentType: request.headers.get("content-type"), body: request.body };
    const file = await receiveFile(form, "file", async (body) => {
      temp = await files.receiveTemp(body, maxBytes, "doc");
      return temp.size;
    });
    const fileName = file.fileName.slice(0, 255);
    try {
      detectKind(file.head, { contentType: file.mimeType, fileName });
    } catch (err) {
      if (err instanceof ExtractionError) throw new AppError("unsupported_media_type", scrubMessage(err.message));
      throw err;
    }
    if (file.skippedFiles.includes("metadata"))
      throw field("metadata", "must be a JSON object in a plain form field, not a file");
    const metadata = parseMetadataPart(file.fields.metadata);
    const name = file.fields.name?.trim();
    if (name !== undefined && (name.length === 0 || name.length > 200))
      throw field("name", "must be 1 to 200 characters, not counting whitespace around it");
    return { tempPath: temp!.path, fileName, fileSize: temp!.size, hash: temp!.hash, name, metadata };
  } catch (err) {
    if (temp) rmSync(temp.path, { force: true });
    throw err;
  }
}

function parseMetadataPart(text: string | undefined): Metadata | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw field("metadata", "must be a JSON object");
  }
  return checkMetadata(value, "metadata");
}

/** The upsert plan of a received file. */
export function planFileDocument(f: ReceivedDocumentFile, externalId: string, ctx: ItemContext): UpsertPlan {
  return {
    collectionId: ctx.collectionId,
    externalId,
    type: "file",
    name: f.name,
    derivedName: f.fileName.slice(0, 200),
    file: { fileName: f.fileName, fileSize: f.fileSize, tempPath: f.tempPath },
    filePathOf: ctx.filePathOf,
    contentHash: f.hash,
    metadata: f.metadata,
  };
}
