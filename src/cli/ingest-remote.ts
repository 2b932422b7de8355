/**
 * `ragd ingest`'s side of the documents API (docs/API.md, Documents API): the pipeline's
 * documents by external id, a file PUT as multipart, a DELETE. A 429 or 503 with
 * Retry-After is waited out and sent again, BUSY_RETRIES times; every other failure is the
 * caller's to count. The server is not trusted to be ragd: an answer is read up to
 * ANSWER_MAX_BYTES, and the document list is checked and read up to the total it gives first.
 */
import type { LocalFile } from "../tools/folder-walk";

/** A failure of the server or the connection, with the server's own message when there is one. */
export class RemoteError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** Still busy (429/503) after BUSY_RETRIES waits: every other request would be too. */
    readonly busy = false,
  ) {
    super(message);
  }
}

export interface RemoteDocument {
  externalId: string;
  contentHash: string | null;
  status: string;
}

const PAGE_SIZE = 1000;
/**
 * How long, in seconds of Retry-After in all, a busy server (429/503) is waited out for one
 * request, and how many times at most it is asked again: a server that queries keep busy
 * asks for a second at a time (docs/operations.md, Queries first), a full queue for a minute.
 */
const BUSY_WAIT_S = 300;
const BUSY_RETRIES = 300;
/** The largest answer read: a full page of documents with the most metadata is about 20 MiB. */
export const ANSWER_MAX_BYTES = 64 * 1024 * 1024;

export class Remote {
  constructor(
    private readonly url: string,
    private readonly key: string,
  ) {}

  /** Every document of the key's pipeline that has an external id, by that id. */
  async documents(): Promise<Map<string, RemoteDocument>> {
    const out = new Map<string, RemoteDocument>();
    // The first page's total bounds the pages: a server that never says "last page" still ends.
    let pages = 1;
    for (let page = 1; page <= pages; page++) {
      const body = await this.send("GET", `/api/rag/documents?page=${page}&pageSize=${PAGE_SIZE}`);
      const { rows, documents, total } = documentList(body, this.url);
      if (page === 1) pages = Math.ceil(total / PAGE_SIZE);
      for (const d of documents) out.set(d.externalId, d);
      if (rows < PAGE_SIZE) break;
    }
    return out;
  }

  /** Creates or replaces the document `externalId` with the file; the server's status (created, replaced, unchanged). */
  async put(externalId: string, file: LocalFile, metadata: Record<string, unknown>): Promise<string> {
    const form = () => {
      const f = new FormData();
      // Read from disk as the request is sent, not held in memory first.
      f.append("file", Bun.file(file.absolute), file.path.slice(file.path.lastIndexOf("/") + 1));
      f.append("metadata", JSON.stringify(metadata));
      return f;
    };
    const body = (await this.send("PUT", docPath(externalId), form)) as { status: string };
    return body.status;
  }

  async remove(externalId: string): Promise<void> {
    await this.send("DELETE", docPath(externalId));
  }

  /** One request and its JSON answer; a 2xx only, or RemoteError with the server's message. */
  private async send(method: string, path: string, form?: () => FormData): Promise<unknown> {
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(this.url + path, {
          method,
          headers: { authorization: `Bearer ${this.key}` },
          body: form?.(),
        });
      } catch (err) {
        throw new RemoteError(`cannot reach ${this.url}: ${(err as Error).message}`, 0);
      }
      const text = await answerText(res, this.url);
      const wait = Number(res.headers.get("retry-after"));
      const busy = (res.status === 429 || res.status === 503) && wait > 0;
      if (busy && attempt < BUSY_RETRIES && waited + Math.min(wait, 60) <= BUSY_WAIT_S) {
        waited += Math.min(wait, 60);
        await Bun.sleep(Math.min(wait, 60) * 1000);
        continue;
      }
      if (res.ok) return text ? parseJson(text, this.url) : null;
      const message = messageOf(text, res.status);
      const gaveUp = `still busy after ${attempt} retries in ${Math.round(waited)} s: ${message}`;
      throw new RemoteError(busy ? gaveUp : message, res.status, busy);
    }
  }
}

/** The answer's text, read up to ANSWER_MAX_BYTES; a longer one is refused, not held in memory. */
async function answerText(res: Response, url: string): Promise<string> {
  if (!res.body) return "";
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const part of res.body) {
    size += part.byteLength;
    // Leaving the loop cancels the rest of the answer.
    if (size > ANSWER_MAX_BYTES)
      throw new RemoteError(`${url} answered with more than ${ANSWER_MAX_BYTES / 1024 / 1024} MiB; is it ragd?`, 0);
    parts.push(part);
  }
  return Buffer.concat(parts).toString("utf8");
}

function parseJson(text: string, url: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new RemoteError(`${url} answered with something other than JSON; is it ragd?`, 0);
  }
}

/**
 * A page of the document list as ragd sends it (anything else stops the run): its rows, the
 * documents among them with an external id, and the total of the list.
 */
function documentList(body: unknown, url: string): { rows: number; documents: RemoteDocument[]; total: number } {
  const b = body as { documents?: unknown; total?: unknown } | null;
  const total = b?.total;
  const docs = b?.documents;
  const valid =
    Number.isSafeInteger(total) &&
    (total as number) >= 0 &&
    Array.isArray(docs) &&
    docs.every(
      (d) => typeof d === "object" && d !== null && (d.externalId === null || typeof d.externalId === "string"),
    );
  if (!valid) throw new RemoteError(`${url} did not answer with a document list (documents and total); is it ragd?`, 0);
  // A hash of another type matches no file's: the file is sent, and the server decides.
  const documents = (docs as Record<string, unknown>[])
    .filter((d) => d.externalId !== null)
    .map((d) => ({
      externalId: d.externalId as string,
      contentHash: typeof d.contentHash === "string" ? d.contentHash : null,
      status: typeof d.status === "string" ? d.status : "",
    }));
  return { rows: docs.length, documents, total: total as number };
}

const docPath = (externalId: string) => `/api/rag/documents/${encodeURIComponent(externalId)}`;

/** The error body's message (`{"error": {"code", "message"}}`), or the status alone. */
function messageOf(text: string, status: number): string {
  try {
    const e = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
    if (e?.message) return `${status} ${e.code ?? ""}: ${e.message}`.replace(" :", ":");
  } catch {}
  return `HTTP ${status}`;
}
