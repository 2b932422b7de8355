/**
 * Export of one pipeline (docs/API.md, Export and import): its settings, its ready
 * sources with their metadata, text and stored files, and its chunks with their
 * vectors, so another ragd can answer the same queries without embedding anything.
 *
 * The archive (archive.ts) holds pipeline.json, sources.jsonl (one source a line),
 * chunks/NNNNN.arrow (Arrow IPC files of up to 5,000 chunk rows: id, document_id,
 * chunk_index, text, start, end, vector) and files/<source id>. A url/api source's
 * line carries its refresh schedule and crawl settings, so the import keeps fetching it. The sources and the
 * table version are read at one instant (the writers' pause), the rows at that version.
 */
import * as arrow from "apache-arrow";
import { linkSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { missing } from "../core/errors";
import { findCollectionById } from "../db/repo/collections";
import { findDocumentText, listDocuments } from "../db/repo/documents";
import { sourceFetchesOf } from "../db/repo/source-fetches";
import type { Collection, DocumentRow, SourceFetch } from "../db/schema";
import type { Store } from "../db/store";
import { queryTarget } from "../ingest/generations";
import { version } from "../version";
import type { VectorStore } from "../vectors/store";
import { rowsToArrow } from "../vectors/chunk-arrow";
import { tableName } from "../vectors/tables";
import { archiveBytes, type Manifest, manifestOf } from "./archive";
import { STAGING } from "./snapshot";

export const EXPORT_FORMAT = "ragd-pipeline-export";
export const EXPORT_FORMAT_VERSION = 1;

export interface ExportManifest extends Manifest {
  pipeline: { id: string; name: string };
  /** The model the exported index was built with, and its vector size. */
  model: string;
  dimensions: number | null;
  sources: number;
  chunks: number;
  /** Sources left out because they were not ready (queued, processing or failed). */
  skippedSources: number;
}

/** The settings a pipeline carries across (pipeline.json). */
export type ExportedSettings = Pick<
  Collection,
  | "name"
  | "description"
  | "chunkingStrategy"
  | "chunkSize"
  | "chunkOverlap"
  | "embeddingModel"
  | "vectorProvider"
  | "retrievalTopK"
  | "hybridAlpha"
  | "rerankModel"
  | "ocrLanguages"
  | "language"
>;

/** How a url/api source is fetched again: its schedule, crawl settings and last validators. */
export type ExportedFetch = Pick<
  SourceFetch,
  "refreshEvery" | "crawl" | "crawlSourceId" | "etag" | "lastModified" | "lastCheckedAt" | "lastChangedAt"
>;

/** One line of sources.jsonl. */
export type ExportedSource = Pick<
  DocumentRow,
  | "id"
  | "type"
  | "name"
  | "url"
  | "fileName"
  | "fileSize"
  | "metadata"
  | "externalId"
  | "contentHash"
  | "chunkCount"
  | "createdAt"
  | "indexedAt"
> & { content: string | null; hasFile: boolean; ocr?: DocumentRow["ocr"]; fetch?: ExportedFetch };

export interface ExportDeps {
  db: Store;
  vectorStore: VectorStore;
  dataDir: string;
  /** Where a document's stored file is. */
  filePath(collectionId: string, documentId: string): string;
}

export interface PreparedArchive<M extends Manifest> {
  manifest: M;
  bytes: AsyncGenerator<Uint8Array>;
  discard(): void;
}

const SLICE = 5000;

/** Stages the export of `collectionId` and prepares its archive. */
export async function prepareExport(d: ExportDeps, collectionId: string): Promise<PreparedArchive<ExportManifest>> {
  const dir = join(d.dataDir, STAGING, `export-${Date.now()}-${crypto.randomUUID().slice(0, 8)}`);
  mkdirSync(join(dir, "chunks"), { recursive: true });
  const discard = () => rmSync(dir, { recursive: true, force: true });
  // The table's version is held from cleanups (vectors/version-keep.ts) until its chunks are read.
  let release = () => {};
  try {
    // The sources and the table's version at one instant: no chunk write lands between them.
    const at = await d.vectorStore.frozen(async () => {
      // Deleted since the caller's check: the pipeline is not found.
      const col = await findCollectionById(d.db.reader, collectionId);
      if (!col) throw missing("pipeline");
      const { generation } = queryTarget(col);
      const tableVersion = (await d.vectorStore.tableVersions())[tableName(col.id, generation)] ?? null;
      if (tableVersion !== null) release = d.vectorStore.holdVersion(col.id, generation, tableVersion);
      return { col, generation, tableVersion, docs: await listDocuments(d.db.reader, col.id) };
    });
    const ready = at.docs.filter((doc) => doc.status === "ready");
    writeFileSync(join(dir, "pipeline.json"), JSON.stringify(settingsOf(at.col)));
    const fetches = await sourceFetchesOf(
      d.db.reader,
      ready.map((doc) => doc.id),
    );
    const lines: string[] = [];
    for (const doc of ready) lines.push(`${JSON.stringify(await sourceOf(d, doc, dir, fetches.get(doc.id)))}\n`);
    writeFileSync(join(dir, "sources.jsonl"), lines.join(""));
    const keep = new Set(ready.map((doc) => doc.id));
    let chunks = 0;
    let part = 0;
    if (at.tableVersion !== null) {
      for await (const rows of d.vectorStore.readChunks(at.col.id, at.generation, at.tableVersion, SLICE)) {
        // The analysed text stays behind: an import analyses the text again (import.ts).
        const mine = rows.filter((r) => keep.has(r.documentId)).map(({ terms: _t, grams: _g, ...r }) => r);
        if (!mine.length) continue;
        const name = `${String(part++).padStart(5, "0")}.arrow`;
        writeFileSync(join(dir, "chunks", name), arrow.tableToIPC(rowsToArrow(mine), "file"));
        chunks += mine.length;
      }
    }
    release();
    const { model } = queryTarget(at.col);
    const manifest = await manifestOf<ExportManifest>(dir, {
      format: EXPORT_FORMAT,
      formatVersion: EXPORT_FORMAT_VERSION,
      ragdVersion: version,
      createdAt: new Date().toISOString(),
      pipeline: { id: at.col.id, name: at.col.name },
      model,
      dimensions: at.col.embeddingDimensions,
      sources: ready.length,
      chunks,
      skippedSources: at.docs.length - ready.length,
    });
    async function* bytes() {
      try {
        yield* archiveBytes(dir, manifest);
      } finally {
        discard();
      }
    }
    return { manifest, bytes: bytes(), discard };
  } catch (err) {
    release();
    discard();
    throw err;
  }
}

function settingsOf(c: Collection): ExportedSettings {
  return {
    name: c.name,
    description: c.description,
    chunkingStrategy: c.chunkingStrategy,
    chunkSize: c.chunkSize,
    chunkOverlap: c.chunkOverlap,
    // The model the index was built with: the one the imported chunks' vectors come from.
    embeddingModel: queryTarget(c).model,
    vectorProvider: c.vectorProvider,
    retrievalTopK: c.retrievalTopK,
    hybridAlpha: c.hybridAlpha,
    rerankModel: c.rerankModel,
    ocrLanguages: c.ocrLanguages,
    // The language the index was built with, as for the model.
    language: queryTarget(c).language,
  };
}

/** A source's line; its stored file is linked into the staging directory. */
async function sourceOf(
  d: ExportDeps,
  doc: DocumentRow,
  dir: string,
  f: SourceFetch | undefined,
): Promise<ExportedSource> {
  let hasFile = false;
  if (doc.type === "file" && doc.filePath) {
    const from = d.filePath(doc.collectionId, doc.id);
    mkdirSync(join(dir, "files"), { recursive: true });
    try {
      linkSync(from, join(dir, "files", doc.id));
      hasFile = true;
    } catch (err) {
      // Removed since the sources were read (the source was deleted): exported without it.
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
  return {
    id: doc.id,
    type: doc.type,
    name: doc.name,
    url: doc.url,
    fileName: doc.fileName,
    fileSize: doc.fileSize,
    metadata: doc.metadata,
    externalId: doc.externalId,
    contentHash: doc.contentHash,
    ocr: doc.ocr,
    chunkCount: doc.chunkCount,
    createdAt: doc.createdAt,
    indexedAt: doc.indexedAt,
    content: doc.type === "text" ? await findDocumentText(d.db.reader, doc.id) : null,
    hasFile,
    ...(f && {
      fetch: {
        refreshEvery: f.refreshEvery,
        crawl: f.crawl,
        crawlSourceId: f.crawlSourceId,
        etag: f.etag,
        lastModified: f.lastModified,
        lastCheckedAt: f.lastCheckedAt,
        lastChangedAt: f.lastChangedAt,
      },
    }),
  };
}
