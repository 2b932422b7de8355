/**
 * Import of a pipeline export (export.ts; docs/API.md, Export and import) as a new
 * pipeline of the importing user: new ids for the pipeline and each source, the
 * chunks written with their exported vectors (nothing is embedded), a name that is
 * already taken renamed and said so, and the embedding model checked.
 */
import * as arrow from "apache-arrow";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Config } from "../config";
import type { Collections } from "../core/collections";
import type { Db } from "../db/client";
import { findCollectionById, listCollections, updateCollection } from "../db/repo/collections";
import { insertDocument } from "../db/repo/documents";
import { saveSourceFetch, type SourceFetchPatch } from "../db/repo/source-fetches";
import type { DocumentRow, User } from "../db/schema";
import type { Store } from "../db/store";
import { notFound } from "../http/errors";
import { listOllamaModels } from "../embed/index";
import { parseModel } from "../embed/models";
import type { PipelineService } from "../features/pipelines/service";
import { nextCheckAt } from "../ingest/refresh";
import { chunkId } from "../vectors/chunk-id";
import type { VectorStore } from "../vectors/store";
import { chunkFieldsOf, type ChunkRow } from "../vectors/tables";
import { ArchiveError, readArchive } from "./archive";
import {
  EXPORT_FORMAT,
  EXPORT_FORMAT_VERSION,
  type ExportedFetch,
  type ExportedSettings,
  type ExportedSource,
  type ExportManifest,
} from "./export";
import { STAGING } from "./snapshot";

export interface ImportDeps {
  db: Store;
  store: VectorStore;
  pipelines: PipelineService;
  collections: Collections;
  config: Pick<Config, "dataDir" | "ollamaUrl" | "openaiUrl">;
  filePath(collectionId: string, documentId: string): string;
}

/** Whether this server can embed queries with the imported index's model. */
export interface ModelCheck {
  name: string;
  available: boolean;
  message: string;
}

export interface ImportResult {
  pipelineId: string;
  /** Set when the exported name was taken: the name it had. */
  renamedFrom?: string;
  sources: number;
  chunks: number;
  model: ModelCheck;
}

/** Refuses an archive that is not a pipeline export this ragd reads. */
export function checkExportManifest(m: ExportManifest): void {
  if (m.format !== EXPORT_FORMAT)
    throw new ArchiveError(`this is not a ragd pipeline export (its format is ${JSON.stringify(m.format)})`);
  if (m.formatVersion > EXPORT_FORMAT_VERSION)
    throw new ArchiveError(
      `this export was made by a newer ragd (${m.ragdVersion}); import it with that version or later`,
    );
}

/** Imports the export at `file` for `user`. The archive is checked in full before anything is stored. */
export async function importPipeline(d: ImportDeps, user: User, file: string, name?: string): Promise<ImportResult> {
  const dir = join(d.config.dataDir, STAGING, `import-${Date.now()}-${crypto.randomUUID().slice(0, 8)}`);
  mkdirSync(dir, { recursive: true });
  try {
    const manifest = await readArchive<ExportManifest>(file, checkExportManifest, dir);
    const settings = JSON.parse(readFileSync(join(dir, "pipeline.json"), "utf8")) as ExportedSettings;
    const sources = readFileSync(join(dir, "sources.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as ExportedSource);
    const wanted = ((name ?? settings.name) || "").trim().slice(0, 200) || "Imported pipeline";
    const free = await freeName(d.db.reader, user, wanted);
    const created = await d.pipelines.create(user, {
      name: free,
      description: settings.description ?? "",
      chunkingStrategy: settings.chunkingStrategy as never,
      chunkSize: settings.chunkSize,
      chunkOverlap: settings.chunkOverlap,
      embeddingModel: settings.embeddingModel,
      retrievalTopK: settings.retrievalTopK,
      hybridAlpha: settings.hybridAlpha ?? undefined,
      rerankModel: settings.rerankModel ?? undefined,
      ocrLanguages: settings.ocrLanguages ?? undefined,
    });
    try {
      const chunks = await store(d, created.id, manifest, sources, dir);
      const result: ImportResult = {
        pipelineId: created.id,
        sources: sources.length,
        chunks,
        model: await checkModel(d.config, settings.embeddingModel),
      };
      if (free !== wanted) result.renamedFrom = wanted;
      return result;
    } catch (err) {
      await d.collections.deleteCollection(created.id);
      throw err;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `name`, or `name (imported)`, `name (imported 2)`, …: the first the user has no pipeline called. */
async function freeName(db: Db, user: User, name: string): Promise<string> {
  const { rows } = await listCollections(db, {
    userId: user.id,
    kind: "pipeline",
    search: name,
    limit: 10_000,
    offset: 0,
  });
  const taken = new Set(rows.map((c) => c.row.name.toLowerCase()));
  if (!taken.has(name.toLowerCase())) return name;
  for (let i = 1; ; i++) {
    const candidate = `${name.slice(0, 180)} (imported${i > 1 ? ` ${i}` : ""})`;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
}

/** Stores the sources (ready, with new ids), their files, then their chunks; returns the chunk count. */
async function store(
  d: ImportDeps,
  pipelineId: string,
  m: ExportManifest,
  sources: ExportedSource[],
  dir: string,
): Promise<number> {
  const ids = new Map(sources.map((s) => [s.id, Bun.randomUUIDv7()]));
  const now = new Date().toISOString();
  await d.db.atomically(async (tx) => {
    // Deleted by its owner since it was made: as for any missing pipeline.
    if (!(await findCollectionById(tx, pipelineId))) throw notFound("pipeline");
    await updateCollection(tx, pipelineId, { indexModel: m.model, embeddingDimensions: m.dimensions });
    for (const s of sources)
      await insertDocument(tx, rowOf(s, ids.get(s.id)!, pipelineId, now), s.content ?? undefined);
    for (const s of sources) if (s.fetch) await saveSourceFetch(tx, ids.get(s.id)!, fetchOf(s.fetch, ids));
  });
  for (const s of sources) {
    if (!s.hasFile) continue;
    const to = d.filePath(pipelineId, ids.get(s.id)!);
    mkdirSync(dirname(to), { recursive: true });
    renameSync(join(dir, "files", s.id), to);
  }
  let chunks = 0;
  const parts = existsSync(join(dir, "chunks")) ? readdirSync(join(dir, "chunks")).sort() : [];
  for (const part of parts) {
    const rows = rowsOf(readFileSync(join(dir, "chunks", part)), ids, m.dimensions);
    await d.store.replaceDocuments(pipelineId, 1, [], rows, { appendedAreNew: true });
    chunks += rows.length;
  }
  // Rows after the first slice are outside the full-text index until upkeep, and keyword scores
  // differ outside it: bring the new table's indexes up to date before answering.
  await d.store.maintain();
  return chunks;
}

/**
 * A source's fetch state under its new ids: a crawled page whose crawl was not
 * exported becomes a page of its own; a schedule starts from the import.
 */
function fetchOf(f: ExportedFetch, ids: Map<string, string>): SourceFetchPatch {
  return {
    ...f,
    crawlSourceId: f.crawlSourceId === null ? null : (ids.get(f.crawlSourceId) ?? null),
    nextCheckAt: f.refreshEvery ? nextCheckAt(f.refreshEvery, Date.now()) : null,
  };
}

function rowOf(s: ExportedSource, id: string, pipelineId: string, now: string): DocumentRow {
  return {
    id,
    collectionId: pipelineId,
    type: s.type,
    name: s.name,
    contentLength: s.content === null ? null : s.content.length,
    url: s.url,
    urlCredentials: null,
    fileName: s.fileName,
    fileSize: s.fileSize,
    filePath: s.hasFile ? id : null,
    status: "ready",
    error: null,
    chunkCount: s.chunkCount,
    progressDone: 0,
    progressTotal: 0,
    progressUnit: "chunks",
    ocr: s.ocr ?? null,
    createdAt: now,
    updatedAt: now,
    indexedAt: now,
    metadata: s.metadata,
    externalId: s.externalId,
    contentHash: s.contentHash,
  };
}

/** One Arrow file of chunks, with the new source ids; a row of an unknown source or a wrong size is refused. */
function rowsOf(bytes: Uint8Array, ids: Map<string, string>, dimensions: number | null): ChunkRow[] {
  const table = arrow.tableFromIPC(bytes);
  return (table.toArray() as Record<string, unknown>[]).map((r) => {
    const f = chunkFieldsOf(r);
    const doc = ids.get(f.documentId);
    const vector = Float32Array.from(r.vector as ArrayLike<number>);
    if (!doc) throw new ArchiveError(`the export is inconsistent: chunk ${f.id} belongs to no exported source`);
    if (dimensions !== null && vector.length !== dimensions)
      throw new ArchiveError(
        `the export is inconsistent: chunk ${f.id} has ${vector.length} dimensions, not ${dimensions}`,
      );
    return { ...f, id: chunkId(doc, f.chunkIndex), documentId: doc, vector };
  });
}

/** Built-in: always. Ollama: listed by the backend. OpenAI-compatible: configured (it lists nothing). */
export async function checkModel(config: Pick<Config, "ollamaUrl" | "openaiUrl">, name: string): Promise<ModelCheck> {
  const ref = parseModel(name, config.openaiUrl !== null);
  if ("error" in ref) return { name, available: false, message: ref.error };
  if (ref.provider === "builtin") return { name, available: true, message: "the built-in model is always available" };
  if (ref.provider === "openai")
    return { name, available: true, message: "queries are embedded by the configured OpenAI-compatible server" };
  const pulled = await listOllamaModels(config.ollamaUrl);
  const found = pulled.some(
    (p) => p === ref.model || p === `${ref.model}:latest` || p.replace(/:latest$/, "") === ref.model,
  );
  return found
    ? { name, available: true, message: `${ref.model} is installed in Ollama` }
    : {
        name,
        available: false,
        message: `${ref.model} is not installed in the Ollama at ${config.ollamaUrl}: vector and hybrid queries fail until it is pulled (ollama pull ${ref.model}); keyword queries work now`,
      };
}
