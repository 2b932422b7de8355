/**
 * Import of a pipeline export (export.ts; docs/API.md, Export and import) as a new
 * pipeline of the importing user: new ids for the pipeline and each source, the
 * chunks written with their exported vectors (nothing is embedded), a name that is
 * already taken renamed and said so, and the embedding model checked.
 */
import { analyseChunk } from "../text/analyze";
import { LEGACY } from "../text/languages";
import type { ChunkRow } from "../vectors/tables";
import { mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Config } from "../config";
import type { Collections } from "../core/collections";
import { missing } from "../core/errors";
import type { Db } from "../db/client";
import { findCollectionById, listCollections, updateCollection } from "../db/repo/collections";
import { insertDocument } from "../db/repo/documents";
import { saveSourceFetch, type SourceFetchPatch } from "../db/repo/source-fetches";
import type { DocumentRow, User } from "../db/schema";
import type { Store } from "../db/store";
import { listOllamaModels } from "../embed/index";
import { parseModel } from "../embed/models";
import { nextCheckAt } from "../ingest/sync/refresh";
import type { VectorStore } from "../vectors/store";
import { ArchiveError, readArchive } from "./archive";
import { EXPORT_FORMAT, EXPORT_FORMAT_VERSION, type ExportedFetch, type ExportManifest } from "./export";
import { countChunks, rowsOf } from "./import-chunks";
import { type CheckedSource, checkManifestBody, checkSettings, checkSources, chunkParts } from "./import-check";
import type { PipelineMaker } from "./pipeline-maker";
import { STAGING } from "./snapshot";

export interface ImportDeps {
  db: Store;
  vectorStore: VectorStore;
  pipelines: PipelineMaker;
  collections: Collections;
  config: Pick<Config, "dataDir" | "ollamaUrl" | "openaiUrl" | "fetchAllow" | "fetchDeny" | "folderRoots">;
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
  if (!(Number.isInteger(m.formatVersion) && m.formatVersion >= 1 && m.formatVersion <= EXPORT_FORMAT_VERSION))
    throw new ArchiveError(
      `its export format is version ${String(m.formatVersion).slice(0, 20)}, and this ragd reads up to version ${EXPORT_FORMAT_VERSION}; import it with the ragd that made it`,
    );
}

/**
 * Imports the export at `file` for `user`. The archive is checked in full before
 * anything is stored (import-check.ts): every field as its API door would check it,
 * counts and hashes recomputed, and no path built from a value in the archive.
 */
export async function importPipeline(d: ImportDeps, user: User, file: string, name?: string): Promise<ImportResult> {
  // Before the archive is read: a user at their limit would otherwise have it checked in full for nothing.
  await d.pipelines.checkRoom(user);
  const dir = join(d.config.dataDir, STAGING, `import-${Date.now()}-${crypto.randomUUID().slice(0, 8)}`);
  mkdirSync(dir, { recursive: true });
  try {
    const manifest = await readArchive<ExportManifest>(file, checkImportManifest, dir);
    const settings = checkSettings(readFileSync(join(dir, "pipeline.json"), "utf8"), manifest, d.pipelines);
    const sources = checkSources(readFileSync(join(dir, "sources.jsonl"), "utf8"), manifest, d.config);
    const parts = chunkParts(manifest);
    const counts = countChunks(dir, parts, sources, manifest.dimensions);
    const wanted = ((name ?? settings.name) || "").trim().slice(0, 200) || "Imported pipeline";
    const free = await freeName(d.db.reader, user, wanted);
    const created = await d.pipelines.create(user, {
      name: free,
      description: settings.description ?? "",
      chunkingStrategy: settings.chunkingStrategy,
      chunkSize: settings.chunkSize,
      chunkOverlap: settings.chunkOverlap,
      embeddingModel: settings.embeddingModel,
      retrievalTopK: settings.retrievalTopK,
      hybridAlpha: settings.hybridAlpha ?? undefined,
      rerankModel: settings.rerankModel ?? undefined,
      ocrLanguages: settings.ocrLanguages ?? undefined,
    });
    try {
      const language = settings.language;
      const chunks = await store(d, created.id, manifest, { sources, counts, parts, dir, language });
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

/** The export manifest's head, then its body: model, vector size and the entries an export may hold. */
function checkImportManifest(m: ExportManifest): void {
  checkExportManifest(m);
  checkManifestBody(m);
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

/** What the checks found: the sources, each one's chunk count, and the chunk parts in order. */
interface Checked {
  sources: CheckedSource[];
  counts: Map<string, number>;
  parts: string[];
  dir: string;
  /** The index's language setting, from the archive (legacy for exports made before languages). */
  language: string;
}

/** Rows with their text analysed as the pipeline's language wants (never taken from the archive). */
function analysed(rows: ChunkRow[], language: string): ChunkRow[] {
  return language === LEGACY ? rows : rows.map((r) => ({ ...r, ...analyseChunk(r.text, language) }));
}

/** Stores the sources (ready, with new ids), their files, then their chunks; returns the chunk count. */
async function store(d: ImportDeps, pipelineId: string, m: ExportManifest, c: Checked): Promise<number> {
  const ids = new Map(c.sources.map((s) => [s.id, Bun.randomUUIDv7()]));
  const now = new Date().toISOString();
  await d.db.atomically(async (tx) => {
    // Deleted by its owner since it was made: as for any missing pipeline.
    if (!(await findCollectionById(tx, pipelineId))) throw missing("pipeline");
    await updateCollection(tx, pipelineId, {
      indexModel: m.model,
      embeddingDimensions: m.dimensions,
      language: c.language,
      indexLanguage: c.language,
    });
    for (const s of c.sources) {
      const row = rowOf(s, ids.get(s.id)!, pipelineId, now, c.counts.get(s.id) ?? 0);
      await insertDocument(tx, row, s.content ?? undefined);
    }
    for (const s of c.sources) if (s.fetch) await saveSourceFetch(tx, ids.get(s.id)!, fetchOf(s.fetch, ids));
  });
  for (const s of c.sources) {
    if (!s.fileEntry) continue;
    const to = d.filePath(pipelineId, ids.get(s.id)!);
    mkdirSync(dirname(to), { recursive: true });
    // The entry's path comes from the checked manifest (files/<checked id>), inside the staging directory.
    renameSync(join(c.dir, s.fileEntry.path), to);
  }
  let chunks = 0;
  for (const part of c.parts) {
    const rows = analysed(rowsOf(readFileSync(join(c.dir, part)), part, ids, m.dimensions), c.language);
    await d.vectorStore.replaceDocuments(pipelineId, 1, [], rows, { appendedAreNew: true });
    chunks += rows.length;
  }
  // Rows after the first slice are outside the full-text index until upkeep, and keyword scores
  // differ outside it: bring the new table's indexes up to date before answering.
  await d.vectorStore.upkeep();
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

function rowOf(s: CheckedSource, id: string, pipelineId: string, now: string, chunkCount: number): DocumentRow {
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
    filePath: s.fileEntry ? id : null,
    status: "ready",
    error: null,
    chunkCount,
    progressDone: 0,
    progressTotal: 0,
    progressUnit: "chunks",
    ocr: s.ocr,
    createdAt: now,
    updatedAt: now,
    indexedAt: now,
    metadata: s.metadata,
    externalId: s.externalId,
    contentHash: s.contentHash,
  };
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
