/**
 * The index upkeep job (tools/scheduler.ts, every RAGD_UPKEEP_EVERY): compaction, full-text
 * catch-up and ANN training are heavy on memory, so while ingestion runs the full pass waits
 * for a quiet moment, or two minutes at most (vectors/upkeep-clock.ts); compaction needs
 * room to write, so nothing runs while the disk is under RAGD_MIN_FREE_MB.
 */
import type { IngestEngine } from "./ingest/engine";
import type { Logger } from "./log";
import type { Clock } from "./tools/clock";
import { releaseMemory } from "./tools/memory";
import type { VectorStore } from "./vectors/store";
import { UpkeepClock } from "./vectors/upkeep-clock";

/**
 * A release is a full collection on this thread plus malloc_trim: under steady query
 * traffic it would otherwise run after every upkeep; once a minute is enough.
 */
const RELEASE_EVERY_MS = 60_000;

export interface UpkeepParts {
  vectorStore: VectorStore;
  engine: Pick<IngestEngine, "busy">;
  disk: { writable(): boolean };
  /** Another replica may have rebuilt a table's ANN index: its facts are read again. */
  replica: boolean;
  /** For failures that recur on every tick: once, then once a minute. */
  quiet: Logger;
  clock: Clock;
  /** The job's interval: a burst of ingestion gets one interval before its tails are caught up. */
  everyMs: number;
}

/** The upkeep job's run: one step of upkeep-clock.ts, resolved when that step's work ends. */
export function indexUpkeep(p: UpkeepParts): () => Promise<void> {
  const { vectorStore: store, engine, clock, quiet } = p;
  const steps = new UpkeepClock(clock.now(), p.everyMs);
  let lastRelease = Number.NEGATIVE_INFINITY;
  const failed = (err: unknown) => quiet.warn("index upkeep failed", { error: err });
  const release = async () => {
    // Once ingestion is quiet, what its bursts (and the searches beside them) freed goes back to the system.
    if ((await engine.busy()) || clock.now() - lastRelease < RELEASE_EVERY_MS || !store.takeActivity()) return;
    lastRelease = clock.now();
    releaseMemory();
  };
  const step = async () => {
    if (p.replica) store.forgetIndexFacts();
    if (!p.disk.writable()) return;
    const next = steps.tick(await engine.busy(), clock.now(), store.lastWriteAt);
    if (next === "none") return;
    // Keyword searches re-tokenise every row the full-text index lacks: catch long tails up now.
    if (next === "tails") return store.catchUpTails().catch(failed);
    const started = clock.now();
    await store.upkeep().catch(failed);
    steps.fullPassTook(clock.now() - started);
    await release();
  };
  return () => step().catch(failed);
}
