/**
 * Pipelines: a user's collections of kind "pipeline". Validates settings that the
 * schema alone cannot (overlap below size, known model), enforces tier limits and
 * presents rows with their derived status and counts.
 */
import { Value } from "@sinclair/typebox/value";
import type { Config, TierName } from "../../config";
import type { PipelineMaker } from "../../backup/pipeline-maker";
import type { Collections } from "../../core/collections";
import type { Db } from "../../db/client";
import {
  countCollections,
  findCollection,
  findOwnedCollection,
  insertCollection,
  listCollections,
  updateCollection,
  type CollectionStatus,
  type CollectionWithStats,
} from "../../db/repo/collections";
import { findUserState } from "../../db/repo/users";
import type { Collection, User } from "../../db/schema";
import type { Store } from "../../db/store";
import { parseModel } from "../../embed/models";
import { AppError, notFound, type FieldProblem } from "../../http/errors";
import { firstGeneration, followSettingsIfEmpty, indexDimensions, languageOf } from "../../ingest/generations";
import { AUTO, isLanguageSetting, LEGACY } from "../../text/languages";
import { missingLanguage, missingLanguageMessage } from "../../ingest/ocr/languages";
import { presentQueryLog, queryLogColumns } from "../insight/settings";
import { embeddedSources } from "../sources/list";
import { type Pipeline, PipelineCreate, type PipelineCreateBody, type PipelinePatchBody } from "./schemas";

export const TIER_LIMITS: Record<TierName, number> = { free: 1, pro: 25, unlimited: Infinity };

export interface PipelineSettings {
  chunkingStrategy: string;
  chunkSize: number;
  chunkOverlap: number;
  embeddingModel: string;
}

/** Checks the rules that span fields; throws invalid_request with details. */
export function checkSettings(s: PipelineSettings, openaiConfigured: boolean): void {
  const problems: FieldProblem[] = [];
  if (s.chunkOverlap >= s.chunkSize) {
    problems.push({ field: "chunkOverlap", message: `must be less than chunkSize (${s.chunkSize})` });
  }
  const model = parseModel(s.embeddingModel, openaiConfigured);
  if ("error" in model) problems.push({ field: "embeddingModel", message: model.error });
  if (problems.length) {
    throw new AppError("invalid_request", `${problems[0]!.field}: ${problems[0]!.message}`, problems);
  }
}

/** 400 when a language OCR is asked to read with has no data (docs/API.md, "OCR"). */
function checkOcrLanguages(languages: string[] | null | undefined, dataDir: string): void {
  const missing = languages ? missingLanguage(languages, dataDir) : undefined;
  if (missing === undefined) return;
  const message = missingLanguageMessage(missing);
  throw new AppError("invalid_request", `ocrLanguages: ${message}`, [{ field: "ocrLanguages", message }]);
}

/**
 * 400 unless `language` may be set (`auto` or a code of GET /api/languages). `legacy` is
 * only kept, by a collection that has it (`current`), never chosen.
 */
export function checkLanguage(language: string | undefined, current?: string): void {
  if (language === undefined || isLanguageSetting(language) || (language === LEGACY && current === LEGACY)) return;
  const message =
    language === LEGACY
      ? "legacy is kept by pipelines made before languages existed; it cannot be chosen"
      : `unknown language ${JSON.stringify(language)}; expected auto or a code listed by GET /api/languages`;
  throw new AppError("invalid_request", `language: ${message}`, [{ field: "language", message }]);
}

/** The public shape of a pipeline row; `queryLogAllowed` is false when the server forbids query logs. */
export function presentPipeline(c: CollectionWithStats, queryLogAllowed = true): Pipeline {
  const r = c.row;
  return {
    id: r.id,
    name: r.name,
    description: r.description ?? "",
    chunkingStrategy: r.chunkingStrategy,
    chunkSize: r.chunkSize,
    chunkOverlap: r.chunkOverlap,
    embeddingModel: r.embeddingModel,
    embeddingDimensions: indexDimensions(r),
    vectorProvider: r.vectorProvider,
    retrievalTopK: r.retrievalTopK,
    hybridAlpha: r.hybridAlpha ?? null,
    rerankModel: r.rerankModel ?? null,
    ocrLanguages: r.ocrLanguages ?? null,
    language: r.language,
    indexLanguage: languageOf(r, r.activeGeneration),
    queryLog: presentQueryLog(r, queryLogAllowed),
    status: c.status,
    sourceCount: Number(c.sourceCount),
    chunkCount: Number(c.chunkCount),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export class PipelineService implements PipelineMaker {
  constructor(
    private readonly db: Store,
    private readonly collections: Collections,
    private readonly config: Pick<Config, "defaultEmbeddingModel" | "openaiUrl" | "dataDir" | "queryLog">,
  ) {}

  private get queryLogAllowed(): boolean {
    return this.config.queryLog === "on";
  }

  /** The fields of `raw` that a create request takes, and the first problem its schema finds (an import's check). */
  creatable(raw: Record<string, unknown>) {
    const fields: Record<string, unknown> = {};
    for (const k of Object.keys(PipelineCreate.properties)) if (raw[k] !== undefined) fields[k] = raw[k];
    const first = Value.Errors(PipelineCreate, fields).First();
    return { fields, problem: first ? { path: first.path, message: first.message } : null };
  }

  /** 403 tier_limit_reached when `user` may make no more pipelines now (an import asks before it reads its archive). */
  checkRoom(user: User): Promise<void> {
    return checkPipelineRoom(this.db.reader, user);
  }

  async create(user: User, body: PipelineCreateBody): Promise<Pipeline> {
    const settings = {
      chunkingStrategy: body.chunkingStrategy ?? "recursive",
      chunkSize: body.chunkSize ?? 1000,
      chunkOverlap: body.chunkOverlap ?? Math.min(200, Math.floor((body.chunkSize ?? 1000) / 5)),
      embeddingModel: body.embeddingModel ?? this.config.defaultEmbeddingModel,
    };
    checkSettings(settings, this.config.openaiUrl !== null);
    checkOcrLanguages(body.ocrLanguages, this.config.dataDir);
    checkLanguage(body.language);
    const queryLog = queryLogColumns(body.queryLog, this.queryLogAllowed);
    const language = body.language ?? AUTO;
    const now = new Date().toISOString();
    const id = Bun.randomUUIDv7();
    // Count and insert in one transaction so two racing creates cannot both pass the limit.
    await this.db.atomically(async (tx) => {
      // An account deleted since its session was checked: as for a session that ended.
      if (!(await findUserState(tx, user.id))) throw new AppError("unauthenticated", "this account no longer exists");
      await checkPipelineRoom(tx, user);
      await insertCollection(tx, {
        id,
        userId: user.id,
        kind: "pipeline",
        name: body.name,
        description: body.description ?? "",
        ...settings,
        language,
        ...firstGeneration(settings.embeddingModel, language),
        vectorProvider: body.vectorProvider ?? "lancedb",
        retrievalTopK: body.retrievalTopK ?? 5,
        hybridAlpha: body.hybridAlpha ?? null,
        rerankModel: body.rerankModel ?? null,
        ocrLanguages: body.ocrLanguages ?? null,
        ...queryLog,
        createdAt: now,
        updatedAt: now,
      });
    });
    return await this.get(user, id);
  }

  async list(user: User, q: { page?: number; pageSize?: number; search?: string; status?: CollectionStatus }) {
    const page = q.page ?? 1;
    const pageSize = q.pageSize ?? 10;
    const { rows, total } = await listCollections(this.db.reader, {
      userId: user.id,
      kind: "pipeline",
      search: q.search?.trim() || undefined,
      status: q.status,
      limit: pageSize,
      offset: (page - 1) * pageSize,
    });
    const present = (c: CollectionWithStats) => presentPipeline(c, this.queryLogAllowed);
    return { data: rows.map(present), page, pageSize, total, totalPages: Math.ceil(total / pageSize) };
  }

  /** The pipeline row with stats; 404 when missing or not the user's. */
  async find(user: User, id: string): Promise<CollectionWithStats> {
    const found = await findCollection(this.db.reader, user.id, "pipeline", id);
    if (!found) throw notFound("pipeline");
    return found;
  }

  /**
   * The pipeline row alone (no stats); 404 when missing or not the user's. `db` is a
   * transaction's, to check and change the row in one step.
   */
  async own(user: User, id: string, db: Db = this.db.reader): Promise<Collection> {
    const found = await findOwnedCollection(db, user.id, "pipeline", id);
    if (!found) throw notFound("pipeline");
    return found;
  }

  async get(user: User, id: string): Promise<Pipeline> {
    return presentPipeline(await this.find(user, id), this.queryLogAllowed);
  }

  /** The pipeline with its first page of sources; GET .../sources pages through the rest. */
  async detail(user: User, id: string) {
    const p = await this.get(user, id);
    return { ...p, dataSources: await embeddedSources(this.db.reader, id) };
  }

  /** Updates settings; never re-indexes (POST .../reindex does). */
  async update(user: User, id: string, patch: PipelinePatchBody): Promise<Pipeline> {
    const { queryLog, ...settings } = patch;
    const changes = { ...stripUndefined(settings), ...queryLogColumns(queryLog, this.queryLogAllowed) };
    const before = (await this.find(user, id)).row;
    checkSettings({ ...before, ...changes }, this.config.openaiUrl !== null);
    checkOcrLanguages(patch.ocrLanguages, this.config.dataDir);
    checkLanguage(patch.language, before.language);
    if (Object.keys(changes).length > 0) {
      await this.db.atomically(async (tx) => {
        // Checked again on the row as it is now: a change beside this one may have moved another field.
        const row = { ...(await this.own(user, id, tx)), ...changes };
        checkSettings(row, this.config.openaiUrl !== null);
        await updateCollection(tx, id, { ...changes, updatedAt: new Date().toISOString() });
        if (changes.embeddingModel || changes.language)
          await followSettingsIfEmpty(tx, id, { model: row.embeddingModel, language: row.language });
      });
    }
    return await this.get(user, id);
  }

  async remove(user: User, id: string): Promise<{ deleted: true; id: string }> {
    await this.find(user, id);
    // Deleted by another request since the check: not found, as for any missing pipeline.
    if (!(await this.collections.deleteCollection(id))) throw notFound("pipeline");
    return { deleted: true, id };
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** 403 tier_limit_reached when `user` has as many pipelines as its tier allows (administrators have no limit). */
async function checkPipelineRoom(db: Db, user: User): Promise<void> {
  // Administrators have no pipeline limit, whatever their tier (docs/API.md, Administration).
  const limit = user.isAdmin ? Number.POSITIVE_INFINITY : TIER_LIMITS[user.tier];
  const have = await countCollections(db, user.id, "pipeline");
  if (have >= limit) {
    throw new AppError(
      "tier_limit_reached",
      `the ${user.tier} tier allows ${limit} pipeline${limit === 1 ? "" : "s"}; delete one or ask an administrator for a higher tier`,
    );
  }
}
