/**
 * The multipart form of PUT /api/rag/documents/{externalId}: a `file` part, and
 * optional `metadata` (JSON) and `name` parts. The file streams through the shared
 * multipart reader, hashed as it goes: the same file sent again is recognised and
 * embeds nothing. On disk it waits in files/.tmp and the upsert moves a new one into
 * place inside its transaction; in object storage it is stored before the transaction
 * as an object of its own name, which the row then names, and whichever object the
 * commit leaves unnamed (this one when refused or unchanged, the former one when
 * replaced) is removed after it.
 */
import { rmSync } from "node:fs";
import type { Metadata } from "../../core/metadata";
import type { DiskFileStore } from "../../files/disk-store";
import { MULTIPART_OVERHEAD, receiveFile } from "../../files/multipart";
import type { FileStore } from "../../files/store";
import { AppError } from "../../http/errors";
import { detectKind } from "../../ingest/extract/detect";
import { ExtractionError } from "../../ingest/extract/errors";
import type { UpsertPlan } from "../../ingest/write/upsert";
import { scrubMessage } from "../../tools/scrub";
import { checkMetadata, type ItemContext } from "./input";

/** Where a received file waits for the upsert: a temporary path, or an object under the collection's files. */
export interface FileStaging {
  receive(
    body: ReadableStream<Uint8Array> | null,
    limit: number,
  ): Promise<{ staged: string; size: number; hash: string }>;
  /** Removes what `receive` kept; a staged file the upsert took is no longer there (disk) or is named by a row. */
  discard(staged: string): Promise<void>;
}

/** On disk: files/.tmp, moved into place inside the upsert's transaction. */
export const diskStaging = (files: DiskFileStore): FileStaging => ({
  async receive(body, limit) {
    const r = await files.receiveTemp(body, limit, "doc");
    return { staged: r.path, size: r.size, hash: r.hash };
  },
  async discard(staged) {
    rmSync(staged, { force: true });
  },
});

/** In object storage: an object of a new name under the collection's files, stored whole before the upsert. */
export const objectStaging = (files: FileStore, collectionId: string): FileStaging => ({
  async receive(body, limit) {
    const staged = crypto.randomUUID();
    return { staged, ...(await files.save(collectionId, staged, body, limit)) };
  },
  discard: (staged) => files.remove(collectionId, staged),
});

/** A received file, staged, with what the form said of it. */
export interface ReceivedDocumentFile {
  staged: string;
  fileName: string;
  fileSize: number;
  hash: string;
  name?: string;
  metadata?: Metadata;
}

const field = (name: string, message: string) =>
  new AppError("invalid_request", `${name}: ${message}`, [{ field: name, message }]);

/** Reads the form, checks the file's type and the metadata and name parts; the bytes wait where `staging` keeps them. */
export async function receiveDocumentFile(
  request: Request,
  staging: FileStaging,
  maxBytes: number,
): Promise<ReceivedDocumentFile> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > maxBytes + MULTIPART_OVERHEAD)
    throw new AppError("payload_too_large", `files larger than ${maxBytes} bytes are not accepted`);
  let temp: { staged: string; size: number; hash: string } | undefined;
  try {
    const form = { contentType: request.headers.get("content-type"), body: request.body };
    const file = await receiveFile(form, "file", async (body) => {
      temp = await staging.receive(body, maxBytes);
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
    return { staged: temp!.staged, fileName, fileSize: temp!.size, hash: temp!.hash, name, metadata };
  } catch (err) {
    if (temp) await staging.discard(temp.staged).catch(() => {});
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
    file: { fileName: f.fileName, fileSize: f.fileSize, staged: f.staged },
    filePathOf: ctx.filePathOf,
    contentHash: f.hash,
    metadata: f.metadata,
  };
}
