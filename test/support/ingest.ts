/**
 * Helpers for ingestion tests: polling with a deadline, a small client for
 * pipelines/sources/keys/queries over `app.handle`, raw PUTs to upload URLs,
 * direct reads of LanceDB and the data dir, and generated documents (PDF, DOCX,
 * zip bombs) built in memory — tests never read fixtures from disk.
 */
import * as lancedb from "@lancedb/lancedb";
import JSZip from "jszip";
import { existsSync, readdirSync, statSync } from "node:fs";
import { connect } from "node:net";
import { join, relative } from "node:path";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { buildApp } from "../../src/app";
import { updateUserTier } from "../../src/db/repo/users";
import { email, type Reply, type TestApp } from "./app";

import { waitFor } from "./wait";

export { waitFor };

export interface SourceJson {
  id: string;
  pipelineId: string;
  type: string;
  name: string;
  status: "awaiting_upload" | "queued" | "processing" | "ready" | "failed";
  error: string | null;
  chunkCount: number;
  progress: { done: number; total: number };
  uploadUrl?: string;
  uploadExpiresAt?: string;
  [k: string]: unknown;
}

const SETTLED = new Set(["ready", "failed"]);

/** A signed-up user on the unlimited tier, with helpers that go through HTTP. */
export class Client {
  private raw: ReturnType<typeof buildApp> | null = null;

  private constructor(
    readonly t: TestApp,
    readonly cookie: string,
  ) {}

  static async create(t: TestApp): Promise<Client> {
    const e = email("ingest");
    const cookie = await t.signup(e);
    await t.services.db.atomically((tx) => updateUserTier(tx, e, "unlimited"));
    return new Client(t, cookie);
  }

  /** A session request; a body-less POST still says it is JSON, as the CSRF rule requires. */
  call(method: string, path: string, body?: unknown): Promise<Reply> {
    const headers: Record<string, string> =
      body === undefined && method === "POST" ? { "content-type": "application/json" } : {};
    return this.t.call(method, path, { cookie: this.cookie, body, headers });
  }

  /** Creates a pipeline and returns its id. */
  async pipeline(body: Record<string, unknown> = {}): Promise<string> {
    const r = await this.call("POST", "/api/rag/pipelines", { name: "p", ...body });
    if (r.status !== 201) throw new Error(`create pipeline: ${r.status} ${r.text}`);
    return r.body.id;
  }

  async getPipeline(id: string) {
    const r = await this.call("GET", `/api/rag/pipelines/${id}`);
    if (r.status !== 200) throw new Error(`get pipeline: ${r.status} ${r.text}`);
    return r.body;
  }

  /** POST …/sources; returns the reply as is. */
  addSource(pipelineId: string, body: Record<string, unknown>): Promise<Reply> {
    return this.call("POST", `/api/rag/pipelines/${pipelineId}/sources`, body);
  }

  /** Adds a text source, expecting 201. */
  async addText(pipelineId: string, content: string, name?: string): Promise<SourceJson> {
    const r = await this.addSource(pipelineId, { type: "text", content, ...(name ? { name } : {}) });
    if (r.status !== 201) throw new Error(`add text: ${r.status} ${r.text}`);
    return r.body;
  }

  async sources(pipelineId: string): Promise<SourceJson[]> {
    const r = await this.call("GET", `/api/rag/pipelines/${pipelineId}/sources`);
    if (r.status !== 200) throw new Error(`list sources: ${r.status} ${r.text}`);
    return r.body;
  }

  async source(pipelineId: string, sourceId: string): Promise<SourceJson | undefined> {
    return (await this.sources(pipelineId)).find((s) => s.id === sourceId);
  }

  /** Waits until the source is ready or failed, and returns it. */
  settled(pipelineId: string, sourceId: string, timeoutMs = 20_000): Promise<SourceJson> {
    return waitFor(
      `source ${sourceId} to be ready or failed`,
      async () => {
        const s = await this.source(pipelineId, sourceId);
        return s && SETTLED.has(s.status) ? s : null;
      },
      timeoutMs,
    );
  }

  /** Waits until every source of the pipeline is ready or failed. */
  allSettled(pipelineId: string, timeoutMs = 20_000): Promise<SourceJson[]> {
    return waitFor(
      `every source of ${pipelineId} to settle`,
      async () => {
        const all = await this.sources(pipelineId);
        return all.every((s) => SETTLED.has(s.status)) ? all : null;
      },
      timeoutMs,
    );
  }

  /** Creates a file source and PUTs its bytes; returns the created source and the PUT reply. */
  async upload(pipelineId: string, fileName: string, bytes: Uint8Array, declared = bytes.byteLength) {
    const created = await this.addSource(pipelineId, { type: "file", fileName, fileSize: declared });
    if (created.status !== 201) throw new Error(`create file source: ${created.status} ${created.text}`);
    const put = await this.put(created.body.uploadUrl, bytes as Uint8Array<ArrayBuffer>);
    return { created: created.body as SourceJson, put };
  }

  /** A PUT through the same app, without a cookie (the signature is the authority). */
  async put(url: string, body: BodyInit | null, headers: Record<string, string> = {}): Promise<Reply> {
    this.raw ??= buildApp(this.t.services);
    const res = await this.raw.handle(new Request(url, { method: "PUT", body, headers }));
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  /** A new API key's raw value for the pipeline. */
  async key(pipelineId: string): Promise<string> {
    const r = await this.call("POST", `/api/rag/pipelines/${pipelineId}/keys`, { name: "test" });
    if (r.status !== 201) throw new Error(`create key: ${r.status} ${r.text}`);
    return r.body.key;
  }

  /** POST /api/rag/query with a key. */
  query(key: string, body: Record<string, unknown>): Promise<Reply> {
    return this.t.call("POST", "/api/rag/query", { headers: { authorization: `Bearer ${key}` }, body });
  }
}

/** The LanceDB table name of a collection generation. */
export const tableNameOf = (collectionId: string, generation: number) =>
  `c_${collectionId.replace(/-/g, "").toLowerCase()}_g${generation}`;

/** A fresh LanceDB connection on a data dir, seeing every committed write. */
export function openLanceDir(dataDir: string) {
  return lancedb.connect(join(dataDir, "lance"), { readConsistencyInterval: 0 });
}

/** Chunk rows ({id, document_id}) of one table read straight from LanceDB; [] when it does not exist. */
export async function chunkRows(
  dataDir: string,
  collectionId: string,
  generation: number,
): Promise<{ id: string; document_id: string }[]> {
  const conn = await openLanceDir(dataDir);
  try {
    const name = tableNameOf(collectionId, generation);
    if (!(await conn.tableNames()).includes(name)) return [];
    const table = await conn.openTable(name);
    try {
      const rows = await table.query().select(["id", "document_id"]).toArray();
      return rows.map((r) => ({ id: String(r.id), document_id: String(r.document_id) }));
    } finally {
      table.close();
    }
  } finally {
    conn.close();
  }
}

/** Table names of a collection in LanceDB. */
export async function tablesOf(dataDir: string, collectionId: string): Promise<string[]> {
  const conn = await openLanceDir(dataDir);
  try {
    const prefix = `c_${collectionId.replace(/-/g, "").toLowerCase()}_g`;
    return (await conn.tableNames()).filter((n) => n.startsWith(prefix));
  } finally {
    conn.close();
  }
}

/** Every regular file under `dir`, as paths relative to it (sorted); [] when it does not exist. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

/** Ids that appear more than once: how many, and the first three (short enough for a failure message). */
export function duplicates(ids: string[]): { count: number; sample: string[] } {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const id of ids) (seen.has(id) ? dup : seen).add(id);
  return { count: dup.size, sample: [...dup].slice(0, 3) };
}

/** What `duplicates` returns when every id is unique. */
export const NO_DUPLICATES = { count: 0, sample: [] };

const utf8 = new TextEncoder();
export const bytesOf = (s: string) => utf8.encode(s);

/** A PDF with one page per entry of `pages`, drawn with a standard font. */
export async function makePdf(pages: string[], title?: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pages) doc.addPage().drawText(text, { x: 50, y: 700, font, size: 12 });
  if (title) doc.setTitle(title);
  return doc.save();
}

const CONTENT_TYPES = `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const RELS = `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;
const xmlEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A minimal DOCX: one `<w:p>` per paragraph; `extra` adds more entries. */
export async function makeDocx(
  paragraphs: string[],
  extra: Record<string, Uint8Array | string> = {},
): Promise<Uint8Array> {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t>${xmlEscape(p)}</w:t></w:r></w:p>`).join("");
  const zip = new JSZip();
  zip.file("[Content_Types].xml", CONTENT_TYPES);
  zip.file("_rels/.rels", RELS);
  zip.file(
    "word/document.xml",
    `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  );
  for (const [name, data] of Object.entries(extra)) zip.file(name, data);
  return zip.generateAsync({ type: "uint8array", compression: "DEFLATE", compressionOptions: { level: 9 } });
}

/**
 * Sends one raw HTTP/1.1 request over TCP, so that a path reaches the server
 * exactly as written (no client-side URL normalisation). Resolves to the status.
 */
export function rawHttp(
  port: number,
  method: string,
  path: string,
  body = "",
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    const timer = setTimeout(() => socket.destroy(new Error(`no answer to ${method} ${path}`)), 10_000);
    socket.on("connect", () => {
      socket.write(
        `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    socket.on("data", (d) => (text += d.toString("utf8")));
    socket.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, text });
    });
  });
}
