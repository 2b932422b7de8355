/**
 * The one place that reads the environment and command-line flags.
 * Every setting has a flag and a RAGD_* variable; the flag wins.
 * A bad value throws ConfigError, which main.ts turns into one line and exit code 2.
 */
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import {
  cidrList,
  ConfigError,
  duration,
  hostList,
  int,
  languageList,
  list,
  oneOf,
  postgresUrl,
  type S3Location,
  s3Location,
  s3Region,
  str,
  url,
} from "./config-values";
import { checkStorage } from "./config-storage";

/** LanceDB's index cache unless RAGD_INDEX_CACHE_MB says otherwise (vectors/connection.ts says why it may need more). */
export const DEFAULT_INDEX_CACHE_MB = 512;
import { TIME_SETTINGS, type TimeConfig, timeDefaults } from "./config-time";
import { parseModel } from "./embed/models";

export { ConfigError } from "./config-values";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type TierName = "free" | "pro" | "unlimited";

/**
 * A replica holds at most this many tasks per worker unless RAGD_REPLICA_CLAIMS says
 * otherwise: one claim statement's worth (claim-window.ts), about what a worker starts at
 * once. Every task a replica holds waits out its lease if the replica is killed, while
 * those it left queued go to the others at once; and tasks queued beyond what it can
 * start soon are better left to a replica with idle workers.
 */
export const REPLICA_CLAIMS_PER_WORKER = 128;

/** Every setting; the periods of periodic work are in TimeConfig (config-time.ts). */
/** argon2id's cost: its memory in KiB and its passes over it. */
export interface PasswordCost {
  memoryKib: number;
  passes: number;
}

/** Bun's own argon2id cost: 64 MiB, 2 passes. */
export const PASSWORD_COST: PasswordCost = { memoryKib: 65_536, passes: 2 };

export interface Config extends TimeConfig {
  host: string;
  port: number;
  dataDir: string;
  publicUrl: string | null;
  /** Host names ragd answers for besides loopback and the public URL's host (docs/API.md). */
  allowedHosts: string[];
  /** Reverse proxies (IPs or CIDRs) whose X-Forwarded-For names the client. */
  trustedProxies: string[];
  ollamaUrl: string;
  defaultEmbeddingModel: string;
  openaiUrl: string | null;
  openaiKey: string | null;
  /** A reranking server answering POST {url}/v1/rerank; null = no reranking (docs/API.md, Reranking). */
  rerankUrl: string | null;
  workers: number;
  /** Replicas: the most ingestion tasks one holds per worker (ingest/run/claim-window.ts). */
  replicaClaims: number;
  /** How much lower the ingestion workers' CPU priority is than the main thread's (nice, Linux); 0 = the same. */
  workerNice: number;
  /** Percent of the time chunk commits may take while queries wait for a turn (vectors/write-pacing.ts); 100 = no pacing. */
  writeSharePct: number;
  signup: "open" | "closed";
  defaultTier: TierName;
  maxUploadMb: number;
  /** Largest JSON request body, in bytes. */
  maxJsonBytes: number;
  fetchAllow: string[];
  fetchDeny: string[];
  log: LogLevel;
  /** Queries per second allowed per API key, and the burst above it. */
  queryRate: number;
  queryBurst: number;
  /** Seconds an idle connection is kept (Bun's idleTimeout); event streams are exempt. */
  idleTimeoutS: number;
  /** Seconds between an event stream's heartbeats (docs/API.md, Events). */
  eventHeartbeatS: number;
  /** Below this many MB free on the data directory's disk: /readyz 503, new writes 507. */
  minFreeMb: number;
  /** MB of LanceDB's cache of index pages (vector, full-text, scalar), shared by every table. */
  indexCacheMb: number;
  /**
   * Waits between the attempts of a webhook delivery (docs/API.md, Events): one
   * attempt more than entries. Not a setting of its own; tests shorten it.
   */
  webhookRetryDelaysMs: number[];
  /** The organisation's OpenID Connect issuer; null = no single sign-on (docs/configuration.md, Single sign-on). */
  oidcIssuer: string | null;
  oidcClientId: string | null;
  oidcClientSecret: string | null;
  /** The name on the dashboard's "Sign in with …" button. */
  oidcName: string;
  /** `off`: sign-up and sign-in with a password are refused; single sign-on only. */
  passwordLogin: "on" | "off";
  /** How hard a password hash is (src/features/auth/passwords.ts); no flag sets it. */
  passwordCost: PasswordCost;
  /** `off`: no pipeline may keep a query log; what was kept is deleted (docs/security.md, Query log). */
  queryLog: "on" | "off";
  /** Tesseract language data OCR reads images with, e.g. ["eng", "deu"] (docs/API.md, OCR). */
  ocrLanguages: string[];
  /** Longest OCR of one page or image before the source fails. */
  ocrPageTimeoutMs: number;
  /** Least wait between two requests of a crawl to one host, in ms (docs/API.md, "Refresh and crawl"). */
  crawlDelayMs: number;
  /**
   * How long one crawl may run before it stops and keeps what it has, inside the
   * 15-minute cap of a task. Not a setting of its own; tests shorten it.
   */
  crawlBudgetMs: number;
  /**
   * Folders whose contents folder sources may read (docs/API.md, "Folder sources"); none by
   * default, so that no user can read the server's disk.
   */
  folderRoots: string[];
  /** Where scheduled backups go; null = no scheduled backups (docs/API.md, Backup and restore). */
  backupDir: string | null;
  /** Time between scheduled backups, in milliseconds. */
  backupEveryMs: number;
  /** Scheduled backups kept; older ones are removed. */
  backupKeep: number;
  /** Metadata and tasks in this PostgreSQL database instead of ragd.db (docs/operations.md, PostgreSQL). */
  databaseUrl: string | null;
  /** Vectors and files in this bucket instead of the data directory (docs/operations.md, Object storage). */
  storage: S3Location | null;
  s3Endpoint: string | null;
  s3Region: string | null;
  s3AccessKeyId: string | null;
  s3SecretAccessKey: string | null;
  /** MiB of the data directory the bucket cache may keep of the table files it read (vectors/bucket-cache.ts); 0 = no cache. */
  bucketCacheMb: number;
}

type Source = Record<string, string | undefined>;

/** One setting: its flag, its variable and how to read it. */
interface Setting<K extends keyof Config> {
  key: K;
  flag: string;
  env: string;
  parse: (raw: string, name: string) => Config[K];
}

const TIERS = ["free", "pro", "unlimited"] as const;
const LEVELS = ["debug", "info", "warn", "error"] as const;

const SETTINGS: Setting<keyof Config>[] = [
  { key: "host", flag: "host", env: "RAGD_HOST", parse: str },
  { key: "port", flag: "port", env: "RAGD_PORT", parse: int(0, 65535) },
  { key: "dataDir", flag: "data-dir", env: "RAGD_DATA_DIR", parse: (r) => resolve(r) },
  { key: "publicUrl", flag: "public-url", env: "RAGD_PUBLIC_URL", parse: url },
  { key: "allowedHosts", flag: "allowed-hosts", env: "RAGD_ALLOWED_HOSTS", parse: hostList },
  { key: "trustedProxies", flag: "trusted-proxies", env: "RAGD_TRUSTED_PROXIES", parse: cidrList },
  { key: "ollamaUrl", flag: "ollama-url", env: "RAGD_OLLAMA_URL", parse: url },
  { key: "defaultEmbeddingModel", flag: "default-embedding-model", env: "RAGD_DEFAULT_EMBEDDING_MODEL", parse: str },
  { key: "openaiUrl", flag: "openai-url", env: "RAGD_OPENAI_URL", parse: url },
  { key: "openaiKey", flag: "openai-key", env: "RAGD_OPENAI_KEY", parse: str },
  { key: "rerankUrl", flag: "rerank-url", env: "RAGD_RERANK_URL", parse: url },
  { key: "workers", flag: "workers", env: "RAGD_WORKERS", parse: int(1, 256) },
  { key: "replicaClaims", flag: "replica-claims", env: "RAGD_REPLICA_CLAIMS", parse: int(1, 4096) },
  { key: "workerNice", flag: "worker-nice", env: "RAGD_WORKER_NICE", parse: int(0, 19) },
  { key: "writeSharePct", flag: "write-share", env: "RAGD_WRITE_SHARE", parse: int(5, 100) },
  { key: "signup", flag: "signup", env: "RAGD_SIGNUP", parse: oneOf(["open", "closed"] as const) },
  { key: "defaultTier", flag: "default-tier", env: "RAGD_DEFAULT_TIER", parse: oneOf(TIERS) },
  { key: "maxUploadMb", flag: "max-upload-mb", env: "RAGD_MAX_UPLOAD_MB", parse: int(1, 100_000) },
  { key: "maxJsonBytes", flag: "max-json-bytes", env: "RAGD_MAX_JSON_BYTES", parse: int(1024, 1 << 30) },
  { key: "fetchAllow", flag: "fetch-allow", env: "RAGD_FETCH_ALLOW", parse: list },
  { key: "fetchDeny", flag: "fetch-deny", env: "RAGD_FETCH_DENY", parse: list },
  { key: "log", flag: "log", env: "RAGD_LOG", parse: oneOf(LEVELS) },
  { key: "queryRate", flag: "query-rate", env: "RAGD_QUERY_RATE", parse: int(1, 1_000_000) },
  { key: "queryBurst", flag: "query-burst", env: "RAGD_QUERY_BURST", parse: int(1, 1_000_000) },
  { key: "idleTimeoutS", flag: "idle-timeout", env: "RAGD_IDLE_TIMEOUT", parse: int(1, 255) },
  { key: "eventHeartbeatS", flag: "event-heartbeat", env: "RAGD_EVENT_HEARTBEAT", parse: int(1, 3600) },
  { key: "minFreeMb", flag: "min-free-mb", env: "RAGD_MIN_FREE_MB", parse: int(0, 100_000_000) },
  { key: "indexCacheMb", flag: "index-cache-mb", env: "RAGD_INDEX_CACHE_MB", parse: int(64, 1_000_000) },
  { key: "oidcIssuer", flag: "oidc-issuer", env: "RAGD_OIDC_ISSUER", parse: url },
  { key: "oidcClientId", flag: "oidc-client-id", env: "RAGD_OIDC_CLIENT_ID", parse: str },
  { key: "oidcClientSecret", flag: "oidc-client-secret", env: "RAGD_OIDC_CLIENT_SECRET", parse: str },
  { key: "oidcName", flag: "oidc-name", env: "RAGD_OIDC_NAME", parse: str },
  { key: "passwordLogin", flag: "password-login", env: "RAGD_PASSWORD_LOGIN", parse: oneOf(["on", "off"] as const) },
  { key: "queryLog", flag: "query-log", env: "RAGD_QUERY_LOG", parse: oneOf(["on", "off"] as const) },
  { key: "ocrLanguages", flag: "ocr-languages", env: "RAGD_OCR_LANGUAGES", parse: languageList },
  { key: "ocrPageTimeoutMs", flag: "ocr-page-timeout-ms", env: "RAGD_OCR_PAGE_TIMEOUT_MS", parse: int(100, 3_600_000) },
  { key: "crawlDelayMs", flag: "crawl-delay-ms", env: "RAGD_CRAWL_DELAY_MS", parse: int(0, 60_000) },
  { key: "folderRoots", flag: "folder-roots", env: "RAGD_FOLDER_ROOTS", parse: (r) => list(r).map((p) => resolve(p)) },
  { key: "backupDir", flag: "backup-dir", env: "RAGD_BACKUP_DIR", parse: (r) => resolve(r) },
  { key: "backupEveryMs", flag: "backup-every", env: "RAGD_BACKUP_EVERY", parse: duration },
  { key: "backupKeep", flag: "backup-keep", env: "RAGD_BACKUP_KEEP", parse: int(1, 10_000) },
  { key: "databaseUrl", flag: "database-url", env: "RAGD_DATABASE_URL", parse: postgresUrl },
  { key: "storage", flag: "storage-url", env: "RAGD_STORAGE_URL", parse: s3Location },
  { key: "s3Endpoint", flag: "s3-endpoint", env: "RAGD_S3_ENDPOINT", parse: url },
  { key: "s3Region", flag: "s3-region", env: "RAGD_S3_REGION", parse: s3Region },
  { key: "s3AccessKeyId", flag: "s3-access-key-id", env: "RAGD_S3_ACCESS_KEY_ID", parse: str },
  { key: "s3SecretAccessKey", flag: "s3-secret-access-key", env: "RAGD_S3_SECRET_ACCESS_KEY", parse: str },
  { key: "bucketCacheMb", flag: "bucket-cache-mb", env: "RAGD_BUCKET_CACHE_MB", parse: int(0, 100_000_000) },
  ...TIME_SETTINGS,
];

/** The defaults a fresh install runs with. */
export function defaultConfig(): Config {
  return {
    host: "127.0.0.1",
    port: 8484,
    dataDir: resolve("./data"),
    publicUrl: null,
    allowedHosts: [],
    trustedProxies: [],
    ollamaUrl: "http://127.0.0.1:11434",
    defaultEmbeddingModel: "builtin-glove",
    openaiUrl: null,
    openaiKey: null,
    rerankUrl: null,
    workers: Math.max(1, availableParallelism()),
    replicaClaims: REPLICA_CLAIMS_PER_WORKER,
    workerNice: 10,
    writeSharePct: 30,
    signup: "open",
    defaultTier: "free",
    maxUploadMb: 100,
    maxJsonBytes: 10 * 1024 * 1024,
    fetchAllow: [],
    fetchDeny: [],
    log: "info",
    queryRate: 50,
    queryBurst: 100,
    idleTimeoutS: 10,
    eventHeartbeatS: 15,
    minFreeMb: 256,
    indexCacheMb: DEFAULT_INDEX_CACHE_MB,
    // Six attempts over about an hour: at once, then after 10 s, 1, 5, 15 and 40 minutes.
    webhookRetryDelaysMs: [10_000, 60_000, 5 * 60_000, 15 * 60_000, 40 * 60_000],
    oidcIssuer: null,
    oidcClientId: null,
    oidcClientSecret: null,
    oidcName: "single sign-on",
    passwordLogin: "on",
    passwordCost: PASSWORD_COST,
    queryLog: "on",
    ocrLanguages: ["eng"],
    ocrPageTimeoutMs: 120_000,
    crawlDelayMs: 500,
    crawlBudgetMs: 12 * 60_000,
    folderRoots: [],
    backupDir: null,
    backupEveryMs: 86_400_000,
    backupKeep: 7,
    databaseUrl: null,
    storage: null,
    s3Endpoint: null,
    s3Region: null,
    s3AccessKeyId: null,
    s3SecretAccessKey: null,
    bucketCacheMb: 2048,
    ...timeDefaults(),
  };
}

/** Splits `--name value` / `--name=value` pairs; anything else is an error. */
export function parseFlags(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) throw new ConfigError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf("=");
    if (eq > 0) {
      out[arg.slice(2, eq)] = arg.slice(eq + 1);
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined || value.startsWith("--")) throw new ConfigError(`${arg} needs a value`);
    out[arg.slice(2)] = value;
    i++;
  }
  return out;
}

/**
 * Builds the configuration from flags and environment.
 * `allowedFlags` limits which flags a command accepts (others are an error);
 * flags a command handles itself (e.g. --email) are returned in `rest`.
 */
export function loadConfig(
  flags: Record<string, string>,
  env: Source = process.env,
  ownFlags: string[] = [],
): { config: Config; rest: Record<string, string> } {
  const config = defaultConfig();
  const rest: Record<string, string> = {};
  const known = new Set(SETTINGS.map((s) => s.flag));
  for (const name of Object.keys(flags)) {
    if (ownFlags.includes(name)) rest[name] = flags[name]!;
    else if (!known.has(name)) throw new ConfigError(`unknown flag --${name}`);
  }
  for (const s of SETTINGS) {
    const fromFlag = flags[s.flag];
    const fromEnv = env[s.env];
    const raw = fromFlag ?? (fromEnv === "" ? undefined : fromEnv);
    if (raw === undefined) continue;
    const name = fromFlag !== undefined ? `--${s.flag}` : s.env;
    (config as unknown as Record<string, unknown>)[s.key] = s.parse(raw, name);
  }
  const model = parseModel(config.defaultEmbeddingModel, config.openaiUrl !== null);
  if ("error" in model) {
    const from =
      flags["default-embedding-model"] !== undefined ? "--default-embedding-model" : "RAGD_DEFAULT_EMBEDDING_MODEL";
    throw new ConfigError(`${from}: ${model.error}`);
  }
  checkSingleSignOn(config);
  checkStorage(config);
  return { config, rest };
}

/**
 * Single sign-on needs its three settings together; plain http only to a loopback
 * issuer (a provider run beside ragd), since the client secret and tokens cross it.
 * Passwords off without single sign-on would leave no way in.
 */
function checkSingleSignOn(c: Config): void {
  const set = [c.oidcIssuer, c.oidcClientId, c.oidcClientSecret].filter((v) => v !== null).length;
  if (set > 0 && set < 3) {
    throw new ConfigError("RAGD_OIDC_ISSUER, RAGD_OIDC_CLIENT_ID and RAGD_OIDC_CLIENT_SECRET must be set together");
  }
  if (c.oidcIssuer?.startsWith("http:") && !isLoopbackHost(new URL(c.oidcIssuer).hostname)) {
    throw new ConfigError(`RAGD_OIDC_ISSUER must be https unless it is on loopback, got "${c.oidcIssuer}"`);
  }
  if (c.passwordLogin === "off" && set === 0) {
    throw new ConfigError("RAGD_PASSWORD_LOGIN=off needs single sign-on (RAGD_OIDC_ISSUER and its client)");
  }
}

const isLoopbackHost = (h: string) => h === "localhost" || h === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(h);

/** The base URL that upload URLs and docs links are built on. */
export function publicBaseUrl(config: Config, boundPort: number): string {
  if (config.publicUrl) return config.publicUrl;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const shown = host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host;
  return `http://${shown}:${boundPort}`;
}

/** Environment variables documented in docs/configuration.md, for `ragd help`. */
export function settingsTable(): { flag: string; env: string }[] {
  return SETTINGS.map((s) => ({ flag: `--${s.flag}`, env: s.env }));
}
