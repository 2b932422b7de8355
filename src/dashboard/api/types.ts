/**
 * The shapes the dashboard reads from ragd's public API. Where the server already
 * has a schema, the type is derived from it (type-only imports: nothing of the
 * server ends up in the browser bundle), so a change there shows up here at
 * compile time. The rest is written from docs/API.md.
 */
import type {
  AdminUserModel,
  AuditEntryModel,
  AuditPage as AuditPageModel,
  InvitationCreated as InvitationCreatedModel,
  InvitationModel,
} from "../../features/admin/schemas";
import type { UserModel } from "../../features/auth/schemas";
import type { EvalResult, Figures } from "../../features/evals/evaluate";
import type { DeliveryModel, WebhookCreated as WebhookCreatedModel, WebhookModel } from "../../features/events/schemas";
import type { KeyCreated, KeyModel } from "../../features/keys/schemas";
import type { CHUNKING_STRATEGIES, PipelineModel, STATUSES } from "../../features/pipelines/schemas";
import type { QueryResponse as QueryResponseModel, SEARCH_MODES } from "../../features/query/schemas";
import type { SourcePage as SourcePageModel } from "../../features/sources/list";
import type { SourceModel, SOURCE_STATUSES, SOURCE_TYPES } from "../../features/sources/schemas";

export type User = typeof UserModel.static;
export type Tier = User["tier"];
export type AdminUser = typeof AdminUserModel.static;
export type AuditEntry = typeof AuditEntryModel.static;
export type AuditPage = typeof AuditPageModel.static;
export type Invitation = typeof InvitationModel.static;
export type InvitationCreated = typeof InvitationCreatedModel.static;
/** What an invitation's link is for (POST /api/auth/invitation/check). */
export type InvitationInfo = Pick<Invitation, "email" | "tier" | "isAdmin" | "expiresAt">;
/** GET /api/auth/methods: which ways of signing in this server offers. */
export interface AuthMethods {
  password: boolean;
  signup: boolean;
  /** A new account may be made with a password (not while single sign-on is on). */
  passwordSignup: boolean;
  oidc: { name: string; startUrl: string } | null;
  /** No account exists yet: the first one created becomes the administrator. */
  firstAccount: boolean;
}

export type Pipeline = typeof PipelineModel.static;
export type PipelineStatus = (typeof STATUSES)[number];
export type ChunkingStrategy = (typeof CHUNKING_STRATEGIES)[number];

/** The fields a user sets when creating or editing a pipeline. */
export type PipelineConfig = Pick<
  Pipeline,
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

export type Source = typeof SourceModel.static;
export type SourceType = (typeof SOURCE_TYPES)[number];
export type SourceStatus = (typeof SOURCE_STATUSES)[number];
/** A pipeline with its first page of sources (at most 20; `sourceCount` counts all). */
export type PipelineDetail = Pipeline & { dataSources: Source[] };
/** A page of sources with the count of each status among those matching the search. */
export type SourcePage = typeof SourcePageModel.static;

/** The create response of a `file` source carries where to PUT the bytes. */
export type SourceCreated = Source & { uploadUrl?: string; uploadExpiresAt?: string };

export interface Page<T> {
  data: T[];
  page: number;
  pageSize: number;
  total: number;
  totalPages: number;
}

export type ApiKey = typeof KeyModel.static;
export type ApiKeyCreated = typeof KeyCreated.static;

export type Webhook = typeof WebhookModel.static;
export type WebhookCreated = typeof WebhookCreatedModel.static;
export type WebhookDelivery = typeof DeliveryModel.static;

export type QueryMode = (typeof SEARCH_MODES)[number];
export type QueryResponse = typeof QueryResponseModel.static;
export type QueryResult = QueryResponse["results"][number];

/** A knowledge-base search answers like the query endpoint, with kbId instead. */
export type KbSearchResponse = Omit<QueryResponse, "pipelineId"> & { kbId: string };

export interface KnowledgeBase {
  id: string;
  name: string;
  description: string | null;
  documentCount?: number;
  created_at: string;
}

export type DocumentStatus = SourceStatus;

export interface KbDocument {
  id: string;
  kbId: string;
  fileName: string;
  fileSize: number;
  status: DocumentStatus;
  error: string | null;
  chunkCount: number;
  progress?: { done: number; total: number };
  created_at: string;
}

export type KnowledgeBaseDetail = KnowledgeBase & { documents: KbDocument[] };

export interface EmbeddingModels {
  models: { name: string; provider: "builtin" | "ollama" | "openai" }[];
  /** The server's RAGD_DEFAULT_EMBEDDING_MODEL, when it says. */
  default?: string;
  ollama: { reachable: boolean; url: string };
}

/** GET /api/languages: what a pipeline's `language` can be besides `auto` (docs/API.md, Languages). */
export interface Languages {
  default: string;
  languages: { code: string; name: string; stemming: boolean; words: "spaces" | "dictionary" | "syllable-pairs" }[];
}

/** GET /api/ocr/languages: the OCR language data present on the server. */
export interface OcrLanguages {
  languages: { code: string; name: string; builtIn: boolean; bytes: number }[];
}

export interface Deleted {
  deleted: true;
  id: string;
}

/** The figures of a ranking, each in [0, 1] (docs/API.md, Evaluation). */
export type EvalFigures = Figures;
export type EvalRunResult = EvalResult;

/** A re-index's comparison of the serving and the new generation on a set. */
export interface EvalGateResult {
  decision: "switched" | "kept";
  reason: string;
  serving?: EvalResult;
  candidate?: EvalResult;
  tolerance: number;
}

export interface EvalRun {
  id: string;
  setId: string;
  kind: "run" | "reindex";
  createdAt: string;
  result: EvalResult | EvalGateResult;
}

export interface EvalQueryRow {
  query: string;
  expectedSourceIds: string[];
}

export interface EvalSet {
  id: string;
  pipelineId: string;
  name: string;
  queryCount: number;
  queries?: EvalQueryRow[];
  createdAt: string;
  updatedAt: string;
  lastRun: EvalRun | null;
}
