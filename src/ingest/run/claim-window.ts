/**
 * How many tasks the scheduler may hold: it claims while the workers, the jobs awaiting
 * their commit and the sink have room (scheduler.ts does the claiming).
 */
import { REPLICA_CLAIMS_PER_WORKER } from "../../config";
import type { EngineDeps } from "./engine-deps";
import { jobWeight } from "./pool";
import type { ChunkSink } from "../write/sink";

/** Tasks claimed per statement: enough for a burst of small documents, few enough to build their jobs in one go. */
const CLAIM_STEP = 128;
/**
 * Jobs whose worker is done but whose rows are still being committed do not hold
 * a worker; this many may wait for the writer at once (per worker), so commits
 * gather many small documents (a LanceDB commit costs ~15 ms however few its rows,
 * several hundred on a busy machine) and the workers keep embedding meanwhile (at 256,
 * they stopped during each commit). Memory is bounded by rows, below. That is a server
 * alone's bound; a replica holds far fewer (config.ts REPLICA_CLAIMS_PER_WORKER). When
 * replicas held as many, a bound of 64 was tried: it shared 1,500 small documents 641 /
 * 256 / 603 among three instead of 1,000 / 250 / 250, but halved their ingestion on a
 * bucket (893 against 1,326 chunks/s, bench/replicas.ts).
 */
const AWAITING_COMMIT_PER_WORKER = 1024;
/** No new task starts while this many rows wait for the writer (about 60 MB with 384-dimension vectors). */
const MAX_PENDING_ROWS = 20_000;

export class ClaimWindow {
  constructor(
    private readonly d: Pick<EngineDeps, "pool" | "disk" | "replica" | "replicaClaims">,
    private readonly sink: Pick<ChunkSink, "pendingRows">,
  ) {}

  /** Room, with `held` tasks claimed and not ended, in the workers, among the jobs awaiting commit, and in the sink. */
  hasRoom(held: number): boolean {
    const { pool, disk } = this.d;
    return (
      pool.idle > 0 &&
      held < this.mostHeld() &&
      this.sink.pendingRows() < MAX_PENDING_ROWS &&
      (disk?.writable() ?? true)
    );
  }

  /**
   * How many tasks the next claim may take: no more than the pool's idle weight can hold
   * if every one is small (the least weight a job has), nor than may await commit. Every
   * ending kicks: claiming CLAIM_STEP tasks then read 128 documents with their texts and
   * built their jobs to place one, and gave the rest back.
   */
  room(held: number): number {
    const byWeight = Math.ceil(this.d.pool.idle / jobWeight(0));
    return Math.max(1, Math.min(CLAIM_STEP, byWeight, this.mostHeld() - held));
  }

  private mostHeld(): number {
    const perWorker = this.d.replica ? (this.d.replicaClaims ?? REPLICA_CLAIMS_PER_WORKER) : AWAITING_COMMIT_PER_WORKER;
    return this.d.pool.size * perWorker;
  }
}
