/**
 * The opt-in query log (docs/API.md, "Query log and insight"). Every search door passes
 * its search through `around`: when the collection's log is on and the server allows it
 * (RAGD_QUERY_LOG), the search is timed and one entry (what was asked, how it went, never
 * the results) is kept in memory; `flush` writes the gathered entries in one transaction,
 * on the scheduler's "query-log" job, as API keys' last use is written (keys/service.ts).
 * Memory is bounded: past MAX_PENDING entries or MAX_PENDING_CHARS characters of query
 * text, further entries are dropped and counted, never queued. `purge` deletes rows past
 * each collection's retention (the "query-log-purge" job).
 */
import {
  findKeyNames,
  insertQueryLogRows,
  listLoggedCollections,
  purgeAllQueryLog,
  purgeQueryLogBefore,
} from "../../db/repo/query-log";
import type { Collection, QueryLogRow } from "../../db/schema";
import type { Store } from "../../db/store";
import type { SearchRequest } from "../../retrieval/request";
import type { Clock } from "../../tools/clock";

/** The door a search came through. */
export type QueryDoor = QueryLogRow["door"];

/** Who searched: the door, and the API key's id (null for the signed-in owner). */
export interface Asker {
  door: QueryDoor;
  keyId: string | null;
}

/** What an answer must tell the log: how many results, their scores, and the relevance floor's verdict. */
interface Answered {
  results: { score: number }[];
  query: string;
  noRelevantResults: boolean;
}

type Pending = Omit<QueryLogRow, "caller"> & { keyId: string | null };

/** Entries held between two flushes at most; a flush starts early at a tenth of it. */
const MAX_PENDING = 20_000;
/** Characters of query text held at most (a query may be 8,000 characters): about 32 MB. */
const MAX_PENDING_CHARS = 16_000_000;
const DAY_MS = 86_400_000;

export class QueryLog {
  private pending: Pending[] = [];
  private pendingChars = 0;
  private flushing: Promise<void> | null = null;
  /** Entries dropped because the buffer was full (a database that does not keep up). */
  dropped = 0;

  constructor(
    private readonly db: Store,
    /** False when the administrator forbids query logs (RAGD_QUERY_LOG=off). */
    readonly allowed: boolean,
    private readonly clock: Pick<Clock, "now">,
  ) {}

  /** Runs `search`, and logs it when `collection`'s log is on; the answer is never delayed by the log. */
  async around<T extends Answered>(
    collection: Collection,
    asker: Asker,
    request: SearchRequest,
    search: () => Promise<T>,
  ): Promise<T> {
    if (!this.allowed || !collection.queryLog) return search();
    const started = performance.now();
    const answer = await search();
    this.record(collection.id, asker, request, answer, performance.now() - started);
    return answer;
  }

  private record(collectionId: string, asker: Asker, request: SearchRequest, answer: Answered, ms: number): void {
    if (this.pending.length >= MAX_PENDING || this.pendingChars + answer.query.length > MAX_PENDING_CHARS) {
      this.dropped++;
      return;
    }
    const top = answer.results.reduce<number | null>(
      (best, r) => (best === null || r.score > best ? r.score : best),
      null,
    );
    this.pending.push({
      id: Bun.randomUUIDv7(),
      collectionId,
      at: new Date(this.clock.now()).toISOString(),
      query: answer.query,
      mode: request.mode ?? "hybrid",
      filter: request.filter === undefined ? null : JSON.stringify(request.filter),
      resultCount: answer.results.length,
      topScore: top,
      latencyMs: Math.round(ms * 100) / 100,
      door: asker.door,
      keyId: asker.keyId,
      noRelevant: answer.noRelevantResults,
    });
    this.pendingChars += answer.query.length;
    if (this.pending.length >= MAX_PENDING / 10) void this.flush().catch(() => {}); // the timer's flush reports
  }

  /** Writes the gathered entries; called on a timer, early when many gathered, and at shutdown. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async write(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      this.pendingChars = 0;
      await this.db.atomically(async (tx) => {
        const keyIds = [...new Set(batch.flatMap((e) => (e.keyId ? [e.keyId] : [])))];
        const names = await findKeyNames(tx, keyIds);
        const rows = batch.map(({ keyId, ...e }) => ({
          ...e,
          caller: keyId === null ? "owner" : (names.get(keyId) ?? "revoked key"),
        }));
        await insertQueryLogRows(tx, rows);
      });
    }
  }

  /** Forgets the entries of a deleted collection that are not written yet. */
  forgetCollection(collectionId: string): void {
    this.pending = this.pending.filter((e) => e.collectionId !== collectionId);
    this.pendingChars = this.pending.reduce((n, e) => n + e.query.length, 0);
  }

  /** Deletes rows past each collection's retention, and every row when the server forbids the log. */
  async purge(): Promise<number> {
    if (!this.allowed) {
      this.pending = [];
      this.pendingChars = 0;
      await this.db.atomically((tx) => purgeAllQueryLog(tx));
      return 0;
    }
    let gone = 0;
    const now = this.clock.now();
    for (const c of await listLoggedCollections(this.db.reader)) {
      const before = new Date(now - c.days * DAY_MS).toISOString();
      gone += await this.db.atomically((tx) => purgeQueryLogBefore(tx, c.id, before));
    }
    return gone;
  }
}
