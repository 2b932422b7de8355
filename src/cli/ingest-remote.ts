/**
 * `ragd ingest`'s side of the documents API (docs/API.md, Documents API): the pipeline's
 * documents by external id, a file PUT as multipart, a DELETE. A 429 or 503 with
 * Retry-After is waited out and sent again; every other failure is the caller's to count.
 */
import type { LocalFile } from "./ingest-walk";

/** A failure of the server or the connection, with the server's own message when there is one. */
export class RemoteError extends Error {
  constructor(
    message: string,
    readonly status: number,
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
/** How many times a busy server (429/503 with Retry-After) is asked again for one request. */
const BUSY_RETRIES = 20;

export class Remote {
  constructor(
    private readonly url: string,
    private readonly key: string,
  ) {}

  /** Every document of the key's pipeline that has an external id, by that id. */
  async documents(): Promise<Map<string, RemoteDocument>> {
    const out = new Map<string, RemoteDocument>();
    for (let page = 1; ; page++) {
      const body = (await this.send("GET", `/api/rag/documents?page=${page}&pageSize=${PAGE_SIZE}`)) as {
        documents: RemoteDocument[];
        total: number;
      };
      for (const d of body.documents) if (d.externalId !== null) out.set(d.externalId, d);
      if (body.documents.length < PAGE_SIZE || page * PAGE_SIZE >= body.total) return out;
    }
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
      const text = await res.text();
      const wait = Number(res.headers.get("retry-after"));
      if ((res.status === 429 || res.status === 503) && wait > 0 && attempt < BUSY_RETRIES) {
        await Bun.sleep(Math.min(wait, 60) * 1000);
        continue;
      }
      if (res.ok) return text ? JSON.parse(text) : null;
      throw new RemoteError(messageOf(text, res.status), res.status);
    }
  }
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
