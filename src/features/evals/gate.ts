/**
 * The re-index gate (docs/API.md, Evaluation): a re-index started with
 * `{"evalSet": id, "switch": "ifNotWorse"}` builds its generation as usual, then waits
 * here instead of switching. The set is run in hybrid mode (k = 10) on the serving
 * generation and on the new one; the new one switches in only when its nDCG@10 is not
 * lower than the serving one's by more than NOT_WORSE_TOLERANCE. Otherwise the serving
 * generation keeps answering and the new one is dropped. Either way the comparison is
 * stored as a run of the set (kind "reindex") and in the reindex.completed event.
 */
import { findCollectionById } from "../../db/repo/collections";
import { listDocuments, updateDocument } from "../../db/repo/documents";
import { listGatedCollectionIds } from "../../db/repo/evals";
import type { Collection } from "../../db/schema";
import type { Store } from "../../db/store";
import type { IngestEngine } from "../../ingest/engine";
import { awaitsGate, completeReindex, keepServing } from "../../ingest/generations";
import type { Logger } from "../../log";
import type { VectorStore } from "../../vectors/store";
import type { EvalResult } from "./evaluate";
import type { EvalService } from "./service";

/** A drop of nDCG@10 this small still counts as not worse: equal chunks may swap places between indexes. */
export const NOT_WORSE_TOLERANCE = 0.005;
const GATE_MODE = "hybrid" as const;
const GATE_K = 10;

export interface GateDeps {
  db: Store;
  vectorStore: VectorStore;
  engine: IngestEngine;
  evals: EvalService;
  log: Logger;
}

interface Verdict {
  decision: "switched" | "kept";
  reason: string;
  serving?: EvalResult;
  candidate?: EvalResult;
}

export class ReindexGate {
  private readonly busy = new Set<string>();
  private readonly again = new Set<string>();

  constructor(private readonly d: GateDeps) {}

  /** Listens for built re-indexes, and takes up those a restart interrupted. */
  async start(): Promise<void> {
    this.d.engine.onBuilt = (id) => void this.check(id);
    for (const id of await listGatedCollectionIds(this.d.db.reader)) void this.check(id);
  }

  /** Decides a collection's gated re-index once it is built; one decision at a time per collection. */
  async check(collectionId: string): Promise<void> {
    if (this.busy.has(collectionId)) {
      this.again.add(collectionId);
      return;
    }
    this.busy.add(collectionId);
    try {
      do {
        this.again.delete(collectionId);
        await this.decide(collectionId);
      } while (this.again.has(collectionId));
    } catch (err) {
      this.d.log.error("could not decide a re-index on its evaluation", { error: err, collection: collectionId });
    } finally {
      this.busy.delete(collectionId);
    }
  }

  private async decide(collectionId: string): Promise<void> {
    const col = await findCollectionById(this.d.db.reader, collectionId);
    if (!col || !(await awaitsGate(this.d.db.reader, col))) return;
    const verdict = await this.compare(col);
    const drop = await this.d.db.atomically(async (tx) => {
      const now = await findCollectionById(tx, collectionId);
      // A document added meanwhile, or a newer re-index: decide again later on what is there then.
      if (!now || !(await awaitsGate(tx, now)) || now.buildingGeneration !== col.buildingGeneration) return null;
      const data = summary(verdict);
      return verdict.decision === "switched"
        ? await completeReindex(tx, now, Date.now(), data)
        : await keepServing(tx, now, Date.now(), data);
    });
    if (drop === null) return;
    if (verdict.decision === "kept") await this.restoreCounts(col);
    await this.d.vectorStore.dropGeneration(collectionId, drop);
    // Recorded last: once the comparison shows, the decision is carried out.
    const set = await this.d.evals.findSet(col, col.reindexGate!);
    if (set)
      await this.d.evals.record(set, "reindex", {
        ...verdict,
        tolerance: NOT_WORSE_TOLERANCE,
        mode: GATE_MODE,
        k: GATE_K,
      });
    this.d.log.info("re-index decided on its evaluation", { collection: collectionId, decision: verdict.decision });
  }

  /** Runs the set on both generations and says whether the new one may serve. */
  private async compare(col: Collection): Promise<Verdict> {
    const set = await this.d.evals.findSet(col, col.reindexGate!);
    if (!set) return { decision: "kept", reason: "the evaluation set was deleted before the re-index was built" };
    const o = { modes: [GATE_MODE], k: GATE_K };
    let serving: EvalResult;
    let candidate: EvalResult;
    try {
      serving = await this.d.evals.evaluateSet(col, set, { ...o, generation: col.activeGeneration });
      candidate = await this.d.evals.evaluateSet(col, set, { ...o, generation: col.buildingGeneration! });
    } catch (err) {
      return { decision: "kept", reason: `the evaluation failed: ${(err as Error).message}` };
    }
    if (!serving.complete || !candidate.complete)
      return { decision: "kept", reason: "the evaluation ran out of time", serving, candidate };
    const before = serving.overall[GATE_MODE]!.ndcgAt10;
    const after = candidate.overall[GATE_MODE]!.ndcgAt10;
    const figures = `nDCG@10 ${after.toFixed(3)} against ${before.toFixed(3)}`;
    return after >= before - NOT_WORSE_TOLERANCE
      ? { decision: "switched", reason: `not worse: ${figures}`, serving, candidate }
      : { decision: "kept", reason: `worse: ${figures}`, serving, candidate };
  }

  /**
   * After keeping the serving generation: the rebuild set each document's chunk count
   * (and a failed rebuild its status) to the new generation's; put back the serving one's,
   * and index again any document that only the dropped generation had.
   */
  private async restoreCounts(col: Collection): Promise<void> {
    const counts = await this.d.vectorStore.documentCounts(col.id, col.activeGeneration);
    const missing: string[] = [];
    const now = new Date().toISOString();
    await this.d.db.atomically(async (tx) => {
      for (const doc of await listDocuments(tx, col.id)) {
        const n = counts.get(doc.id) ?? 0;
        if (n > 0 && (n !== doc.chunkCount || doc.status === "failed"))
          await updateDocument(tx, doc.id, { chunkCount: n, status: "ready", error: null, updatedAt: now });
        else if (n === 0 && doc.status === "ready" && doc.chunkCount > 0) missing.push(doc.id);
      }
    });
    for (const id of missing) await this.d.engine.enqueue(id);
  }
}

/** What the reindex.completed event carries: the decision and the overall figures. */
function summary(v: Verdict): Record<string, unknown> {
  return {
    decision: v.decision,
    reason: v.reason,
    serving: v.serving?.overall[GATE_MODE] ?? null,
    candidate: v.candidate?.overall[GATE_MODE] ?? null,
  };
}
