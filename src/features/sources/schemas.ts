/** Schemas of data sources (docs/API.md, "The source object"). */
import { t } from "elysia";
import { Enum, Name, StrictInteger } from "../../http/schemas";

export const SOURCE_TYPES = ["text", "file", "url", "api", "folder", "s3", "git"] as const;
export const SOURCE_STATUSES = ["awaiting_upload", "queued", "processing", "ready", "failed"] as const;

/** What one sync of a folder source did (docs/API.md, "Folder sources"). */
export const SyncReportModel = t.Object({
  finishedAt: t.String({ format: "date-time" }),
  added: StrictInteger(),
  changed: StrictInteger(),
  deleted: StrictInteger(),
  unchanged: StrictInteger(),
  failed: StrictInteger(),
  commit: t.Optional(t.String({ description: "Git sources: the commit the sync took (the next sync's base)." })),
  failures: t.Array(t.Object({ path: t.String(), reason: t.String() }), {
    description: "Files and folders not synced, with why (the first 100); what was indexed of them stays.",
  }),
});

export const SourceModel = t.Object({
  id: t.String(),
  pipelineId: t.String(),
  type: Enum(SOURCE_TYPES),
  name: t.String(),
  content: t.Optional(
    t.String({ description: "Text sources: the text, cut to its first 2,000 characters in responses." }),
  ),
  contentLength: t.Optional(
    StrictInteger({ description: "Text sources: the full length of the text, in characters." }),
  ),
  url: t.Optional(t.String({ description: "url and api sources: the URL, without any user:password@ it was given." })),
  fileName: t.Optional(t.String()),
  fileSize: t.Optional(StrictInteger()),
  ocr: t.Optional(
    t.Object(
      { languages: t.Array(t.String()), pages: StrictInteger() },
      {
        description:
          "Present when OCR read some of the indexed text: the language data it used and how many pages (an image is one).",
      },
    ),
  ),
  status: Enum(SOURCE_STATUSES),
  error: t.Union([t.String(), t.Null()]),
  chunkCount: StrictInteger(),
  progress: t.Object(
    {
      done: StrictInteger(),
      total: StrictInteger(),
      unit: t.Optional(t.Literal("pages", { description: "Present while OCR runs: pages recognised of total." })),
    },
    { description: "Chunks embedded of total while processing (pages while OCR runs, with unit: pages)." },
  ),
  createdAt: t.String({ format: "date-time" }),
  updatedAt: t.String({ format: "date-time" }),
  indexedAt: t.Union([t.String({ format: "date-time" }), t.Null()]),
  metadata: t.Record(t.String(), t.Unknown(), {
    description: "The source's labels: strings, numbers, booleans or arrays of strings ({} when none).",
  }),
  externalId: t.Union([t.String(), t.Null()], {
    description: "The id your own system knows it by; unique in the pipeline.",
  }),
  refreshEvery: t.Optional(
    t.Union([StrictInteger(), t.Null()], {
      description: "url, api, folder, s3 and git sources: seconds between re-fetches (syncs); null: none.",
    }),
  ),
  nextCheckAt: t.Optional(t.Union([t.String({ format: "date-time" }), t.Null()])),
  lastCheckedAt: t.Optional(
    t.Union([t.String({ format: "date-time" }), t.Null()], {
      description: "url and api sources: the last fetch that answered.",
    }),
  ),
  lastChangedAt: t.Optional(
    t.Union([t.String({ format: "date-time" }), t.Null()], {
      description: "url and api sources: when the fetched text last differed from what was indexed.",
    }),
  ),
  crawl: t.Optional(
    t.Object({
      depth: StrictInteger(),
      maxPages: StrictInteger(),
      sameSite: t.Boolean(),
      include: t.Array(t.String()),
      exclude: t.Array(t.String()),
      sitemap: t.Boolean(),
    }),
  ),
  crawlReport: t.Optional(
    t.Union([t.Record(t.String(), t.Unknown()), t.Null()], {
      description: "Crawl sources: what the last crawl found (pages, added, changed, removed, skipped with reasons).",
    }),
  ),
  crawlSourceId: t.Optional(t.String({ description: "A crawled page: the crawl source it belongs to." })),
  parentSourceId: t.Optional(
    t.String({ description: "A file of a folder, s3 or git source: the source it belongs to." }),
  ),
  folder: t.Optional(
    t.Object(
      {
        path: t.String(),
        include: t.Array(t.String()),
        exclude: t.Array(t.String()),
        maxFileMb: StrictInteger(),
      },
      { description: "Folder sources: the folder on the server and which of its files are taken." },
    ),
  ),
  syncReport: t.Optional(
    t.Union([SyncReportModel, t.Null()], {
      description: "Folder, s3 and git sources: what the last sync found; null before the first.",
    }),
  ),
  git: t.Optional(
    t.Object(
      {
        branch: t.Union([t.String(), t.Null()]),
        include: t.Array(t.String()),
        exclude: t.Array(t.String()),
        maxFileMb: StrictInteger(),
        maxTotalMb: StrictInteger(),
      },
      {
        description:
          "Git sources: the branch followed (null: the default) and which files are taken; never the credentials.",
      },
    ),
  ),
  s3: t.Optional(
    t.Object(
      {
        endpoint: t.String(),
        bucket: t.String(),
        prefix: t.String(),
        region: t.String(),
        pathStyle: t.Boolean(),
        include: t.Array(t.String()),
        exclude: t.Array(t.String()),
        maxFileMb: StrictInteger(),
      },
      { description: "s3 sources: the store, bucket and prefix, and which objects are taken; never the keys." },
    ),
  ),
});

export type Source = typeof SourceModel.static;

export const refreshEveryInput = t.Union([t.Integer(), t.String(), t.Null()], {
  description:
    'url, api, folder, s3 and git sources: fetch (or sync) again every so often: whole seconds (at least 60) or a duration such as "15m", "1h", "1h30m", "1d" (up to 365 days); null: only when asked (POST …/refetch).',
});

export const CrawlInput = t.Object(
  {
    depth: t.Optional(
      StrictInteger({ minimum: 0, maximum: 10, description: "Links followed from the start page, 0..10; default 2." }),
    ),
    maxPages: t.Optional(
      StrictInteger({ minimum: 1, maximum: 1000, description: "Pages at most, 1..1000; default 100." }),
    ),
    sameSite: t.Optional(t.Boolean({ description: "Only pages of the start URL's host; default true." })),
    include: t.Optional(
      t.Array(t.String(), {
        description: 'Patterns on a page\'s path and query, `*` any run of characters ("/docs/*"); none: every page.',
      }),
    ),
    exclude: t.Optional(
      t.Array(t.String(), { description: "Patterns as in include; a page matching one is skipped." }),
    ),
    sitemap: t.Optional(t.Boolean({ description: "The URL is a sitemap (or sitemap index): its pages are crawled." })),
  },
  { description: "url sources: crawl from the URL; each page becomes a source of the pipeline." },
);

/** Metadata as a client sends it; src/core/metadata.ts checks the rules (docs/API.md, Data sources). */
export const metadataInput = (more = "") =>
  t.Record(t.String(), t.Unknown(), {
    description: `A flat object: keys ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$, values strings (≤ 2,000 chars), finite numbers, booleans or arrays of up to 100 strings; at most 64 keys and 16 KB.${more}`,
  });

export const SourceCreate = t.Object({
  type: Enum(SOURCE_TYPES),
  name: t.Optional(
    Name(200, {
      description:
        "Display name, 1..200 characters after trimming; derived from the content, URL or file name when omitted.",
    }),
  ),
  content: t.Optional(t.String({ description: "For text sources." })),
  url: t.Optional(
    t.String({
      maxLength: 4096,
      description:
        "For url, api and git sources (a Git clone URL): http(s) only. Credentials (user:password@) are used for the fetch and never shown.",
    }),
  ),
  fileName: t.Optional(t.String({ maxLength: 255, description: "For file sources." })),
  fileSize: t.Optional(
    StrictInteger({
      minimum: 1,
      error: "must be an integer of at least 1 (bytes; an empty file cannot be indexed)",
      description: "For file sources: bytes you will upload, at least 1.",
    }),
  ),
  metadata: t.Optional(metadataInput()),
  externalId: t.Optional(
    t.String({ description: "1..256 characters, no control characters; unique in the pipeline (409 otherwise)." }),
  ),
  refreshEvery: t.Optional(refreshEveryInput),
  crawl: t.Optional(CrawlInput),
  path: t.Optional(
    t.String({
      maxLength: 4096,
      description: "For folder sources: an absolute path on the server, under one of RAGD_FOLDER_ROOTS.",
    }),
  ),
  include: t.Optional(
    t.Array(t.String(), {
      description:
        "Folder, s3 and git sources: globs on a file's path relative to the folder (an object's key relative to the prefix, a file's path in the repository), \"**/*.md\"; none: every file.",
    }),
  ),
  exclude: t.Optional(
    t.Array(t.String(), {
      description: "Folder, s3 and git sources: globs as in include; a file matching one is left out.",
    }),
  ),
  maxFileMb: t.Optional(
    StrictInteger({
      description: "Folder, s3 and git sources: larger files are not taken (reported as failed); default 50.",
    }),
  ),
  endpoint: t.Optional(
    t.String({
      maxLength: 2048,
      description:
        "For s3 sources: the S3-compatible store's http(s) URL; the fetch rules apply to it (an address refused now, a name at every connection).",
    }),
  ),
  bucket: t.Optional(t.String({ maxLength: 255, description: "For s3 sources: the bucket's name." })),
  prefix: t.Optional(
    t.String({
      maxLength: 1024,
      description: 'For s3 sources: only objects under this key prefix ("docs/"; a "/" is added); default: all.',
    }),
  ),
  region: t.Optional(
    t.String({ maxLength: 64, description: 'For s3 sources: the signing region; default "us-east-1".' }),
  ),
  pathStyle: t.Optional(
    t.Boolean({
      description:
        "For s3 sources: the bucket in the URL's path (default true); false: in the host name (bucket.host).",
    }),
  ),
  accessKeyId: t.Optional(
    t.String({ maxLength: 1024, description: "For s3 sources: the access key; stored apart and never shown." }),
  ),
  secretAccessKey: t.Optional(
    t.String({ maxLength: 1024, description: "For s3 sources: the secret key; stored apart and never shown." }),
  ),
  branch: t.Optional(
    t.String({
      maxLength: 200,
      description: "For git sources: the branch to follow; default: the repository's default branch.",
    }),
  ),
  maxTotalMb: t.Optional(
    StrictInteger({ description: "For git sources: the most one sync may download, in MB; default 1024." }),
  ),
  username: t.Optional(
    t.String({ maxLength: 1000, description: "For git sources: the user name; stored apart and never shown." }),
  ),
  password: t.Optional(
    t.String({ maxLength: 1000, description: "For git sources: the password; stored apart and never shown." }),
  ),
  token: t.Optional(
    t.String({
      maxLength: 1000,
      description:
        "For git sources: an access token, sent as the password of HTTP Basic; stored apart and never shown.",
    }),
  ),
});

/** PATCH of a source: only what changes without re-embedding (an s3 or git source's credentials too). */
export const SourcePatch = t.Object(
  {
    name: t.Optional(Name(200, { description: "1..200 characters after trimming." })),
    metadata: t.Optional(metadataInput(" Replaces the whole object; {} clears it.")),
    refreshEvery: t.Optional(refreshEveryInput),
    crawl: t.Optional(CrawlInput),
    accessKeyId: t.Optional(
      t.String({
        maxLength: 1024,
        description: "s3 sources: a new access key, with secretAccessKey; stored apart and never shown.",
      }),
    ),
    secretAccessKey: t.Optional(
      t.String({
        maxLength: 1024,
        description: "s3 sources: a new secret key, with accessKeyId; stored apart and never shown.",
      }),
    ),
    username: t.Optional(
      t.String({
        maxLength: 1000,
        description: "git sources: a new user name; the credentials given replace the stored ones; never shown.",
      }),
    ),
    password: t.Optional(
      t.String({ maxLength: 1000, description: "git sources: a new password; stored apart and never shown." }),
    ),
    token: t.Optional(
      t.String({
        maxLength: 1000,
        description: "git sources: a new access token (the password of HTTP Basic); stored apart and never shown.",
      }),
    ),
  },
  { additionalProperties: false },
);

export type SourcePatchBody = typeof SourcePatch.static;

export const SourceCreated = t.Composite([
  SourceModel,
  t.Object({
    uploadUrl: t.Optional(t.String({ description: "File sources: PUT the raw bytes here within 15 minutes." })),
    uploadExpiresAt: t.Optional(t.String({ format: "date-time" })),
  }),
]);

export type SourceCreateBody = typeof SourceCreate.static;
