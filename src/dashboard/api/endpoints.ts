/**
 * Typed calls for every endpoint the dashboard uses, named after what they do.
 * Paths and bodies follow docs/API.md; nothing here knows about screens.
 */
import { qs, request } from "./client";
import type {
  AdminUser,
  AuthMethods,
  ApiKey,
  AuditPage,
  ApiKeyCreated,
  Deleted,
  EmbeddingModels,
  Invitation,
  InvitationCreated,
  InvitationInfo,
  Languages,
  OcrLanguages,
  EvalQueryRow,
  EvalRun,
  EvalSet,
  KbSearchResponse,
  KnowledgeBase,
  KnowledgeBaseDetail,
  Page,
  Pipeline,
  PipelineConfig,
  PipelineDetail,
  PipelineStatus,
  QueryMode,
  QueryResponse,
  Source,
  SourceCreated,
  Tier,
  SourcePage,
  SourceStatus,
  SourceType,
  User,
  Webhook,
  WebhookCreated,
  WebhookDelivery,
} from "./types";

const enc = encodeURIComponent;
const pipelinePath = (id: string) => `/api/rag/pipelines/${enc(id)}`;

export const auth = {
  me: () => request<{ user: User }>("GET", "/api/auth/me"),
  signup: (email: string, password: string) =>
    request<{ user: User }>("POST", "/api/auth/signup", { body: { email, password } }),
  login: (email: string, password: string) =>
    request<{ user: User }>("POST", "/api/auth/login", { body: { email, password } }),
  logout: () => request<void>("POST", "/api/auth/logout"),
  changePassword: (currentPassword: string, newPassword: string) =>
    request<{ user: User }>("POST", "/api/auth/password", { body: { currentPassword, newPassword } }),
  methods: () => request<AuthMethods>("GET", "/api/auth/methods"),
  /** An invitation's link (docs/API.md, Invitations): what it is for, then accept it. */
  checkInvitation: (token: string) =>
    request<InvitationInfo>("POST", "/api/auth/invitation/check", { body: { token } }),
  acceptInvitation: (token: string, password: string) =>
    request<{ user: User }>("POST", "/api/auth/invitation/accept", { body: { token, password } }),
};

export interface PipelineListParams {
  page?: number;
  pageSize?: number;
  search?: string;
  status?: PipelineStatus | "";
}

export const pipelines = {
  list: (p: PipelineListParams) => request<Page<Pipeline>>("GET", `/api/rag/pipelines${qs({ ...p })}`),
  get: (id: string) => request<PipelineDetail>("GET", pipelinePath(id)),
  create: (body: Partial<PipelineConfig> & { name: string }) =>
    request<Pipeline>("POST", "/api/rag/pipelines", { body }),
  update: (id: string, body: Partial<PipelineConfig>) => request<Pipeline>("PATCH", pipelinePath(id), { body }),
  remove: (id: string) => request<Deleted>("DELETE", pipelinePath(id)),
  /** With an evaluation set, the new index switches in only if it is not worse on it. */
  reindex: (id: string, evalSet?: string) =>
    request<{ pipeline: Pipeline }>("POST", `${pipelinePath(id)}/reindex`, {
      body: evalSet ? { switch: "ifNotWorse", evalSet } : undefined,
    }),
  /** The owner's own search, with the session (no API key). */
  query: (id: string, body: QueryInput) => request<QueryResponse>("POST", `${pipelinePath(id)}/query`, { body }),
};

export const evals = {
  list: (pipelineId: string) => request<EvalSet[]>("GET", `${pipelinePath(pipelineId)}/evals`),
  get: (pipelineId: string, id: string) => request<EvalSet>("GET", `${pipelinePath(pipelineId)}/evals/${enc(id)}`),
  create: (pipelineId: string, name: string, input: { queries: EvalQueryRow[] } | { jsonl: string }) =>
    request<EvalSet>("POST", `${pipelinePath(pipelineId)}/evals`, { body: { name, ...input } }),
  remove: (pipelineId: string, id: string) =>
    request<Deleted>("DELETE", `${pipelinePath(pipelineId)}/evals/${enc(id)}`),
  run: (pipelineId: string, id: string) =>
    request<EvalRun>("POST", `${pipelinePath(pipelineId)}/evals/${enc(id)}/run`, { body: {} }),
  runs: (pipelineId: string, id: string) =>
    request<EvalRun[]>("GET", `${pipelinePath(pipelineId)}/evals/${enc(id)}/runs`),
};

export interface NewSource {
  type: SourceType;
  name: string;
  content?: string;
  url?: string;
  fileName?: string;
  fileSize?: number;
  metadata?: Record<string, unknown>;
  externalId?: string;
  /** url/api: seconds or "1h"-style; see docs/API.md, Refresh and crawl. */
  refreshEvery?: number | string | null;
  crawl?: Record<string, unknown>;
  /** folder: the folder on the server; see docs/API.md, Folder sources. */
  path?: string;
  /** s3: the store, bucket, prefix and keys; see docs/API.md, Bucket sources. */
  endpoint?: string;
  bucket?: string;
  prefix?: string;
  region?: string;
  pathStyle?: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** git: the branch and credentials; see docs/API.md, Git sources. */
  branch?: string;
  username?: string;
  token?: string;
}

export interface SourceListParams {
  page?: number;
  pageSize?: number;
  q?: string;
  status?: SourceStatus | "";
  sort?: "createdAt" | "-createdAt";
}

export const sources = {
  /** Always asks for a page (page=1 at least), so the answer is the envelope, never the bare array. */
  list: (pipelineId: string, p: SourceListParams) =>
    request<SourcePage>("GET", `${pipelinePath(pipelineId)}/sources${qs({ page: 1, ...p })}`),
  create: (pipelineId: string, body: NewSource) =>
    request<SourceCreated>("POST", `${pipelinePath(pipelineId)}/sources`, { body }),
  update: (
    pipelineId: string,
    sourceId: string,
    body: { name?: string; metadata?: Record<string, unknown>; refreshEvery?: number | null },
  ) => request<Source>("PATCH", `${pipelinePath(pipelineId)}/sources/${enc(sourceId)}`, { body }),
  retry: (pipelineId: string, sourceId: string) =>
    request<{ source: Source }>("POST", `${pipelinePath(pipelineId)}/sources/${enc(sourceId)}/retry`),
  /** Fetch a url/api source again now (a crawl source crawls again). */
  refetch: (pipelineId: string, sourceId: string) =>
    request<{ source: Source }>("POST", `${pipelinePath(pipelineId)}/sources/${enc(sourceId)}/refetch`),
  remove: (pipelineId: string, sourceId: string) =>
    request<Deleted>("DELETE", `${pipelinePath(pipelineId)}/sources/${enc(sourceId)}`),
  get: (pipelineId: string, sourceId: string) =>
    request<Source>("GET", `${pipelinePath(pipelineId)}/sources/${enc(sourceId)}`),
  /** What was indexed (docs/API.md, Inspecting a source): chunks by page, text spans, events. */
  chunks: (pipelineId: string, sourceId: string, page: number, pageSize: number) =>
    request<ChunkPage>("GET", `${pipelinePath(pipelineId)}/sources/${enc(sourceId)}/chunks${qs({ page, pageSize })}`),
  text: (pipelineId: string, sourceId: string, start: number) =>
    request<TextSpan>("GET", `${pipelinePath(pipelineId)}/sources/${enc(sourceId)}/text${qs({ start })}`),
  history: (pipelineId: string, sourceId: string) =>
    request<{ events: SourceEvent[] }>("GET", `${pipelinePath(pipelineId)}/sources/${enc(sourceId)}/history`),
};

export interface ChunkPage {
  chunks: { chunkIndex: number; start: number; end: number; text: string }[];
  page: number;
  pageSize: number;
  total: number;
}

export interface TextSpan {
  start: number;
  end: number;
  length: number;
  more: boolean;
  rebuilt: boolean;
  text: string;
}

export interface SourceEvent {
  id: number;
  type: string;
  status: string | null;
  time: string;
  error?: string;
}

/** What a new key is created with: scopes default to ["query"], no expiry to never. */
export interface KeyInput {
  name: string;
  scopes?: string[];
  expiresAt?: string;
  /** A metadata filter the key's queries and tokens are held to (docs/API.md, Access rules). */
  filter?: unknown;
}

/** What a key belongs to: a pipeline or a knowledge base, each with its own keys. */
export interface KeyOwner {
  kind: "pipeline" | "kb";
  id: string;
}

const keysPath = (o: KeyOwner) => (o.kind === "kb" ? `/api/kb/${enc(o.id)}/keys` : `${pipelinePath(o.id)}/keys`);

export const keys = {
  list: (owner: KeyOwner) => request<ApiKey[]>("GET", keysPath(owner)),
  create: (owner: KeyOwner, name: string, opts: Omit<KeyInput, "name"> = {}) =>
    request<ApiKeyCreated>("POST", keysPath(owner), { body: { name, ...opts } }),
  revoke: (owner: KeyOwner, keyId: string) => request<Deleted>("DELETE", `${keysPath(owner)}/${enc(keyId)}`),
};

export interface NewWebhook {
  url: string;
  events?: string[];
  description?: string;
}

export const webhooks = {
  list: (pipelineId: string) => request<Webhook[]>("GET", `${pipelinePath(pipelineId)}/webhooks`),
  create: (pipelineId: string, body: NewWebhook) =>
    request<WebhookCreated>("POST", `${pipelinePath(pipelineId)}/webhooks`, { body }),
  remove: (pipelineId: string, id: string) =>
    request<Deleted>("DELETE", `${pipelinePath(pipelineId)}/webhooks/${enc(id)}`),
  deliveries: (pipelineId: string, id: string) =>
    request<WebhookDelivery[]>("GET", `${pipelinePath(pipelineId)}/webhooks/${enc(id)}/deliveries`),
};

export interface QueryInput {
  query: string;
  topK?: number;
  mode?: QueryMode;
  filter?: { metadata?: Record<string, unknown> };
  /** Hybrid only: 0 = keyword only … 1 = vector only; omitted = the pipeline's. */
  hybridAlpha?: number;
  /** 0 (off) … 1: prefer results unlike those above them. */
  diversity?: number;
}

export const knowledgeBases = {
  list: () => request<KnowledgeBase[]>("GET", "/api/kb"),
  get: (id: string) => request<KnowledgeBaseDetail>("GET", `/api/kb/${enc(id)}`),
  create: (name: string, description?: string) =>
    request<KnowledgeBase>("POST", "/api/kb", { body: description ? { name, description } : { name } }),
  remove: (id: string) => request<Deleted>("DELETE", `/api/kb/${enc(id)}`),
  removeDocument: (id: string, docId: string) =>
    request<Deleted>("DELETE", `/api/kb/${enc(id)}/documents/${enc(docId)}`),
  search: (id: string, query: string, topK: number) =>
    request<KbSearchResponse>("POST", `/api/kb/${enc(id)}/search`, { body: { query, topK } }),
  uploadPath: (id: string) => `/api/kb/${enc(id)}/upload`,
};

export const embeddingModels = () => request<EmbeddingModels>("GET", "/api/embedding-models");
export const languages = () => request<Languages>("GET", "/api/languages");
export const ocrLanguages = () => request<OcrLanguages>("GET", "/api/ocr/languages");
/** The executable an MCP client starts for `ragd mcp`; null when the server runs from source. */
export const mcpCommand = () => request<{ command: string | null }>("GET", "/api/mcp/command");

/** POST /api/admin/users: no password makes an invitation valid `expiresIn` hours. */
export interface NewUser {
  email: string;
  password?: string;
  tier?: Tier;
  isAdmin?: boolean;
  expiresIn?: number;
}

const adminUser = (id: string) => `/api/admin/users/${enc(id)}`;

/** Administration (docs/API.md, Administration): administrators only. */
export const admin = {
  users: () => request<{ data: AdminUser[] }>("GET", "/api/admin/users"),
  update: (id: string, body: { tier?: Tier; isAdmin?: boolean }) =>
    request<{ user: AdminUser }>("PATCH", adminUser(id), { body }),
  resetPassword: (id: string) =>
    request<{ user: AdminUser; temporaryPassword: string }>("POST", `${adminUser(id)}/password-reset`),
  setDisabled: (id: string, disabled: boolean) =>
    request<{ user: AdminUser }>("POST", `${adminUser(id)}/${disabled ? "disable" : "enable"}`),
  remove: (id: string, confirm: string) => request<Deleted>("DELETE", `${adminUser(id)}${qs({ confirm })}`),
  audit: (before?: number) => request<AuditPage>("GET", `/api/admin/audit${qs({ limit: 50, before })}`),
  /** With a password, the account; without, an invitation with its link's token. */
  createUser: (body: NewUser) => request<{ user: AdminUser } | InvitationCreated>("POST", "/api/admin/users", { body }),
  invitations: () => request<{ data: Invitation[] }>("GET", "/api/admin/invitations"),
  revokeInvitation: (id: string) =>
    request<{ invitation: Invitation }>("POST", `/api/admin/invitations/${enc(id)}/revoke`),
  /** The whole log as JSON lines, for a download link (the session cookie goes with it). */
  auditLinesPath: "/api/admin/audit?format=jsonl",
};
