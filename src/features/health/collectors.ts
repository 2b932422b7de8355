/**
 * The /metrics families beyond HTTP requests: the ingestion queue, ingestion outcomes
 * and stage durations, embedding calls, LanceDB tables and process memory
 * (docs/operations.md, "Metrics").
 */
import { taskQueueDepth } from "../../db/repo/tasks";
import type { Store } from "../../db/store";
import type { EmbedMetrics } from "../../embed/calls";
import type { Metrics } from "../../http/metrics";
import type { IngestEngine } from "../../ingest/engine";
import { type Labels, renderGauge } from "../../tools/prom";
import type { TableStats, VectorStore } from "../../vectors/store";

/** Table statistics are read at most this often: a scrape every few seconds must not walk every table. */
const TABLE_STATS_TTL_MS = 5_000;

export interface CollectorDeps {
  db: Store;
  engine: IngestEngine;
  vectorStore: VectorStore;
  embed: EmbedMetrics;
}

/** Adds ragd's own metric families to `metrics`. */
export function addCollectors(metrics: Metrics, d: CollectorDeps): void {
  metrics.collect("queue", () => queueDepth(d.db));
  metrics.collect("ingest", () => d.engine.stats.render());
  metrics.collect("embedding", () => d.embed.render());
  metrics.collect("lancedb", tableGauges(d.vectorStore));
  metrics.collect("memory", processMemory);
}

async function queueDepth(db: Store): Promise<string[]> {
  const depth = await taskQueueDepth(db.reader, Date.now());
  return renderGauge(
    "ragd_ingest_queue_depth",
    "Ingestion tasks by status: queued (may start now), waiting (a retry after its backoff), processing.",
    Object.entries(depth).map(([status, n]) => [{ status }, n]),
  );
}

function tableGauges(vectorStore: VectorStore): () => Promise<string[]> {
  let cached: { at: number; stats: Promise<TableStats[]> } | null = null;
  return async () => {
    if (!cached || Date.now() - cached.at > TABLE_STATS_TTL_MS)
      cached = { at: Date.now(), stats: vectorStore.tableStats() };
    const stats = await cached.stats.catch((err) => {
      cached = null;
      throw err;
    });
    const rows: [Labels, number][] = [];
    const bytes: [Labels, number][] = [];
    const fragments: [Labels, number][] = [];
    const indexed: [Labels, number][] = [];
    const unindexed: [Labels, number][] = [];
    for (const t of stats) {
      const table = { collection: t.collectionId, generation: String(t.generation) };
      rows.push([table, t.rows]);
      bytes.push([table, t.bytes]);
      fragments.push([{ ...table, size: "all" }, t.fragments], [{ ...table, size: "small" }, t.smallFragments]);
      for (const i of t.indexes) {
        const labels = { ...table, column: i.column, type: i.type };
        indexed.push([labels, i.indexedRows]);
        unindexed.push([labels, i.unindexedRows]);
      }
    }
    return [
      ...renderGauge("ragd_lancedb_tables", "LanceDB tables (one per collection and index generation).", [
        [{}, stats.length],
      ]),
      ...renderGauge("ragd_lancedb_table_rows", "Chunks in each LanceDB table.", rows),
      ...renderGauge("ragd_lancedb_table_bytes", "Bytes of a table's data and index files.", bytes),
      ...renderGauge(
        "ragd_lancedb_table_fragments",
        "Fragments of a table: all, and small ones the next compaction merges.",
        fragments,
      ),
      ...renderGauge(
        "ragd_lancedb_index_indexed_rows",
        "Rows an index of a table covers, by column and type.",
        indexed,
      ),
      ...renderGauge(
        "ragd_lancedb_index_unindexed_rows",
        "Rows written since an index was last refreshed (searched without it until the next upkeep).",
        unindexed,
      ),
    ];
  };
}

function processMemory(): string[] {
  const m = process.memoryUsage();
  return [
    ...renderGauge("process_resident_memory_bytes", "Resident memory of the ragd process.", [[{}, m.rss]]),
    ...renderGauge("ragd_process_memory_bytes", "Memory of the ragd process by kind (JavaScript heap, external).", [
      [{ kind: "rss" }, m.rss],
      [{ kind: "heap_total" }, m.heapTotal],
      [{ kind: "heap_used" }, m.heapUsed],
      [{ kind: "external" }, m.external],
      [{ kind: "array_buffers" }, m.arrayBuffers],
    ]),
  ];
}
