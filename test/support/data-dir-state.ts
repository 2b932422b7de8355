/**
 * What a stopped server's data directory holds, read straight from its files: the applied
 * migrations, the ingestion tasks and every chunk row of every LanceDB table (id, text and
 * vector). Two readings compare equal when nothing was queued, re-chunked or re-embedded.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { connect } from "@lancedb/lancedb";

export interface DataDirState {
  migrations: string[];
  /** `id status generation updated_at` of every task. */
  tasks: string[];
  /** table name → `id` → `text` and the vector's bytes as hex. */
  chunks: Record<string, Record<string, { text: string; vector: string }>>;
}

export async function readDataDir(dataDir: string): Promise<DataDirState> {
  const db = new Database(join(dataDir, "ragd.db"), { readonly: true });
  try {
    const migrations = (db.query("SELECT tag FROM _migrations ORDER BY tag").all() as { tag: string }[]).map(
      (r) => r.tag,
    );
    const tasks = (
      db.query("SELECT id, status, generation, updated_at FROM tasks ORDER BY id").all() as Record<string, unknown>[]
    ).map((r) => `${r.id} ${r.status} ${r.generation} ${r.updated_at}`);
    return { migrations, tasks, chunks: await readChunks(join(dataDir, "lance")) };
  } finally {
    db.close();
  }
}

async function readChunks(dir: string): Promise<DataDirState["chunks"]> {
  const lance = await connect(dir);
  const chunks: DataDirState["chunks"] = {};
  try {
    for (const name of await lance.tableNames()) {
      const table = await lance.openTable(name);
      const rows = await table.query().select(["id", "text", "vector"]).toArray();
      chunks[name] = {};
      for (const r of rows) {
        const v = r.vector.toArray() as Float32Array;
        chunks[name][r.id] = {
          text: r.text,
          vector: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("hex"),
        };
      }
      table.close();
    }
  } finally {
    lance.close();
  }
  return chunks;
}
