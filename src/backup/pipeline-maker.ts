/**
 * What a pipeline import needs of the pipelines, which are a feature above backup/: the
 * rules of their create request, to check an export's settings by, and the creation
 * itself. The pipeline service implements it; createServices hands it to the import
 * (through the transfer service), so backup/ imports nothing of features/.
 */
import type { User } from "../db/schema";

/** The first problem a schema finds: the field's path (`/chunkSize`) and what is wrong. */
export interface SettingsProblem {
  path: string;
  message: string;
}

/** The settings an imported pipeline is created with: the export's, once `creatable` found no problem. */
export interface ImportedSettings {
  name: string;
  description?: string;
  chunkingStrategy?: string;
  chunkSize?: number;
  chunkOverlap?: number;
  embeddingModel?: string;
  retrievalTopK?: number;
  hybridAlpha?: number | null;
  rerankModel?: string | null;
  ocrLanguages?: string[] | null;
}

export interface PipelineMaker {
  /** The fields of `raw` that a create request takes, and the first problem its schema finds in them. */
  creatable(raw: Record<string, unknown>): { fields: Record<string, unknown>; problem: SettingsProblem | null };
  /** Creates a pipeline of `user`, checked and limited as a create request is. */
  create(user: User, settings: ImportedSettings): Promise<{ id: string }>;
  /** 403 tier_limit_reached when `user` may make no more pipelines now (create checks again). */
  checkRoom(user: User): Promise<void>;
}
