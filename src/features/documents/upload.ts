/**
 * The multipart form of PUT /api/rag/documents/{externalId}: a `file` part, and
 * optional `metadata` (JSON) and `name` parts. The body is read whole (up to the
 * upload limit) because its bytes are hashed before anything is stored: the same
 * file sent again is recognised and embeds nothing.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Metadata } from "../../core/metadata";
import type { FileStore } from "../../files/store";
import { AppError } from "../../http/errors";
import { detectKind } from "../../ingest/extract/detect";
import { ExtractionError } from "../../ingest/extract/errors";
import { scrubMessage } from "../../tools/scrub";
import type { UpsertPlan } from "../../ingest/upsert";
import { readCapped } from "../../tools/streams";
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

/** Reads the form, checks the file's type and the metadata part, and writes the bytes to a temporary file. */
export async function receiveDocumentFile(
  request: Request,
  files: FileStore,
  maxBytes: number,
): Promise<ReceivedDocumentFile> {
  const type = request.headers.get("content-type") ?? "";
  // Room for the form's own boundaries and small parts beside the file.
  const limit = maxBytes + 64 * 1024;
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  const tooLarge = (): never => {
    throw new AppError("payload_too_large", `files larger than ${maxBytes} bytes are not accepted`);
  };
  if (declared > limit) tooLarge();
  const bytes = await readCapped(request.body, limit, tooLarge);
  let form: FormData;
  try {
    form = await new Response(bytes as unknown as BodyInit, { headers: { "content-type": type } }).formData();
  } catch {
    throw new AppError("invalid_request", "the multipart body is malformed");
  }
  const file = form.get("file");
  if (!(file instanceof Blob)) throw field("file", 'the form has no "file" part');
  const data = new Uint8Array(await file.arrayBuffer());
  if (data.length === 0) throw field("file", "the uploaded file is empty");
  if (data.length > maxBytes) tooLarge();
  const fileName = ((file as File).name || "upload").slice(0, 255);
  try {
    detectKind(data.subarray(0, 4096), { contentType: file.type, fileName });
  } catch (err) {
    if (err instanceof ExtractionError) throw new AppError("unsupported_media_type", scrubMessage(err.message));
    throw err;
  }
  const metadata = parseMetadataPart(form.get("metadata"));
  const nameValue = form.get("name");
  const name = typeof nameValue === "string" ? nameValue.trim() : undefined;
  if (name !== undefined && (name.length === 0 || name.length > 200))
    throw field("name", "must be 1 to 200 characters, not counting whitespace around it");
  const tempPath = join(files.dir, ".tmp", `doc-${crypto.randomUUID()}`);
  writeFileSync(tempPath, data, { mode: 0o600 });
  const hash = new Bun.CryptoHasher("sha256").update(data).digest("hex");
  return { tempPath, fileName, fileSize: data.length, hash, name, metadata };
}

function parseMetadataPart(part: FormDataEntryValue | null): Metadata | undefined {
  if (part === null) return undefined;
  const text = typeof part === "string" ? part : null;
  if (text === null) throw field("metadata", "must be a JSON object in a plain form field, not a file");
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
