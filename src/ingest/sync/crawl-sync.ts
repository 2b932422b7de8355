/**
 * A crawl's pages become documents (docs/API.md, "Refresh and crawl"): each page
 * is a source of the pipeline linked to its crawl source. A new page is created with
 * its text and a task; a page whose text hashes as indexed only has its check time
 * noted (nothing is embedded); a changed page gets its new text and a task, and its
 * old chunks answer until the new ones replace them in one commit (write/sink.ts). Once
 * the crawl ends, pages it no longer reached are deleted.
 */
import { parseStoredMetadata } from "../../core/metadata";
import type { Db } from "../../db/client";
import type { Store } from "../../db/store";
import { findCollectionById } from "../../db/repo/collections";
import { findDocumentById, updateDocument } from "../../db/repo/documents";
import { parentNow } from "./inherited-metadata";
import { dropPendingTasksOfDocument, replaceDocumentText } from "../../db/repo/external-documents";
import { type CrawledPage, crawledPagesOf, saveSourceFetch } from "../../db/repo/source-fetches";
import type { DocumentRow, Task } from "../../db/schema";
import type { CrawledPageOut, CrawlReport } from "../crawl/types";
import { queueTask } from "../tasks/queue";

const iso = (ms: number) => new Date(ms).toISOString();

/** What crawl-sync needs of the engine. */
export interface CrawlEngine {
  createDocument(
    draft: Parameters<typeof import("../tasks/queue").newDocumentRow>[0],
    content?: string,
    also?: (t: Db, row: DocumentRow) => Promise<void> | void,
  ): Promise<DocumentRow | null>;
  createDocuments(
    drafts: Parameters<typeof import("../tasks/queue").newDocumentRow>[0][],
    also: (t: Db, rows: DocumentRow[]) => Promise<void>,
  ): Promise<PromiseSettledResult<DocumentRow | null>[]>;
  requeueWith<T>(fn: (t: Db) => Promise<T> | T, documentId: string): Promise<T>;
  removeDocument(collectionId: string, documentId: string): Promise<void>;
}

interface Running {
  pages: Map<string, CrawledPage>;
  added: number;
  changed: number;
}

/** The stored form of a crawl's report, as the source shows it. */
export interface StoredCrawlReport {
  finishedAt: string;
  pages: number;
  added: number;
  changed: number;
  removed: number;
  skipped: CrawlReport["skipped"];
  leftOver: number;
  stoppedEarly: boolean;
}

export class CrawlSync {
  /** Each running crawl's state, loaded by its first page (the pages of a crawl arrive at once). */
  private readonly running = new Map<string, Promise<Running>>();

  constructor(
    private readonly db: Store,
    private readonly engine: CrawlEngine,
  ) {}

  /** Stores one page the crawl of `task` reached. */
  async page(task: Task, p: CrawledPageOut): Promise<void> {
    const run = await this.runOf(task);
    const at = iso(Date.now());
    const known = run.pages.get(p.url);
    const validators = { etag: p.validators.etag, lastModified: p.validators.lastModified };
    if ("notModified" in p || (known && known.contentHash === p.hash)) {
      if (known)
        await this.db.atomically((t) => saveSourceFetch(t, known.documentId, { lastCheckedAt: at, ...validators }));
      return;
    }
    if (known) {
      run.changed++;
      // A new version: the old one's waiting or running task is superseded.
      await this.engine.requeueWith(async (t) => {
        const col = await findCollectionById(t, task.collectionId);
        if (!col || !(await findDocumentById(t, known.documentId))) return;
        await replaceDocumentText(t, known.documentId, p.text);
        await saveSourceFetch(t, known.documentId, { lastCheckedAt: at, ...validators });
        await dropPendingTasksOfDocument(t, known.documentId);
        await queueTask(t, known.documentId, col, Date.now());
      }, known.documentId);
      known.contentHash = p.hash;
      return;
    }
    const parent = await findDocumentById(this.db.reader, task.documentId);
    if (!parent) return;
    const draft = {
      collectionId: task.collectionId,
      type: "url" as const,
      name: (p.title?.trim() || p.url).slice(0, 200),
      url: p.url,
      metadata: parseStoredMetadata(parent.metadata),
    };
    const row = await this.engine.createDocument(draft, p.text, async (t, r) => {
      await saveSourceFetch(t, r.id, { crawlSourceId: task.documentId, lastCheckedAt: at, ...validators });
      // The crawl source's metadata may have changed since it was read (inherited-metadata.ts).
      const metadata = (await parentNow(t, task.documentId, parent.metadata))(r.metadata);
      if (metadata !== r.metadata) await updateDocument(t, r.id, { metadata });
    });
    if (row) run.added++;
    if (row) run.pages.set(p.url, { documentId: row.id, url: p.url, contentHash: p.hash, ...validators });
  }

  /**
   * Ends the crawl of `task`: deletes the pages it did not keep and stores its report
   * on the crawl source, with its check time (and change time, when a page came, changed or went).
   */
  async finish(task: Task, report: CrawlReport): Promise<void> {
    if (report.kept === null) return this.drop(task.id); // nothing was crawled (a re-index)
    const run = await this.runOf(task);
    this.running.delete(task.id);
    let removed = 0;
    if (report.kept !== null && !report.stoppedEarly) {
      const kept = new Set(report.kept);
      for (const page of await crawledPagesOf(this.db.reader, task.documentId)) {
        if (kept.has(page.url)) continue;
        await this.engine.removeDocument(task.collectionId, page.documentId);
        removed++;
      }
    }
    const now = iso(Date.now());
    const stored: StoredCrawlReport = {
      finishedAt: now,
      pages: report.pages,
      added: run.added,
      changed: run.changed,
      removed,
      skipped: report.skipped,
      leftOver: report.leftOver,
      stoppedEarly: report.stoppedEarly,
    };
    const changedAny = run.added + run.changed + removed > 0;
    await this.db.atomically((t) =>
      saveSourceFetch(t, task.documentId, {
        crawlReport: JSON.stringify(stored),
        lastCheckedAt: now,
        ...(changedAny ? { lastChangedAt: now } : {}),
      }),
    );
  }

  /** Forgets a crawl that ended without its report (failed or cancelled). */
  drop(taskId: string): void {
    this.running.delete(taskId);
  }

  private runOf(task: Task): Promise<Running> {
    let run = this.running.get(task.id);
    if (!run) {
      const loading = crawledPagesOf(this.db.reader, task.documentId).then(
        (stored) => ({ pages: new Map(stored.map((p) => [p.url, p])), added: 0, changed: 0 }),
        (err: unknown) => {
          // The next page reads them again.
          if (this.running.get(task.id) === loading) this.running.delete(task.id);
          throw err;
        },
      );
      this.running.set(task.id, (run = loading));
    }
    return run;
  }
}
