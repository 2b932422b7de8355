/**
 * The chunk parts of an imported pipeline export (chunks/NNNNN.arrow): each row
 * checked as ragd's own writes would make it (its source in the archive, whole
 * offsets, a vector of the manifest's size holding finite numbers), read once to
 * count every source's chunks before anything is stored and once to store them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as arrow from "apache-arrow";
import { chunkId } from "../vectors/chunk-id";
import { chunkFieldsOf, type ChunkRow } from "../vectors/tables";
import { ArchiveError } from "./archive";

/** Reads every chunk part once before anything is stored: each row checked, each source's chunks counted. */
export function countChunks(
  dir: string,
  parts: string[],
  sources: { id: string }[],
  dimensions: number | null,
): Map<string, number> {
  const same = new Map(sources.map((s) => [s.id, s.id]));
  const counts = new Map<string, number>();
  const seen = new Set<string>();
  for (const part of parts)
    for (const row of rowsOf(readFileSync(join(dir, part)), part, same, dimensions)) {
      if (seen.has(row.id)) throw new ArchiveError(`${part}: chunk ${row.chunkIndex} of a source appears twice`);
      seen.add(row.id);
      counts.set(row.documentId, (counts.get(row.documentId) ?? 0) + 1);
    }
  return counts;
}

/** Longest chunk text an import takes: far above any chunking setting's output. */
const MAX_CHUNK_CHARS = 1_000_000;

/** One Arrow file of chunks, with the new source ids; a row that a write of ragd's own could not make is refused. */
export function rowsOf(
  bytes: Uint8Array,
  part: string,
  ids: Map<string, string>,
  dimensions: number | null,
): ChunkRow[] {
  let records: Record<string, unknown>[];
  try {
    records = arrow.tableFromIPC(bytes).toArray() as Record<string, unknown>[];
  } catch {
    throw new ArchiveError(`${part} is not an Arrow file of chunks`);
  }
  return records.map((r, i) => {
    const vector = vectorOf(r.vector);
    const problem = chunkProblem(r, ids) ?? vectorProblem(vector, dimensions);
    if (problem) throw new ArchiveError(`${part} row ${i + 1}: ${problem}`);
    const f = chunkFieldsOf(r);
    const doc = ids.get(f.documentId)!;
    return { ...f, id: chunkId(doc, f.chunkIndex), documentId: doc, vector: vector! };
  });
}

/** An Arrow list of numbers as 32-bit floats; anything else is null. */
function vectorOf(v: unknown): Float32Array | null {
  if (v === null || typeof v !== "object" || !(Symbol.iterator in v)) return null;
  try {
    return Float32Array.from(v as Iterable<number>);
  } catch {
    return null;
  }
}

function chunkProblem(r: Record<string, unknown>, ids: Map<string, string>): string | undefined {
  const whole = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
  if (typeof r.document_id !== "string" || !ids.has(r.document_id)) return "it belongs to no exported source";
  if (!whole(r.chunk_index)) return "chunk_index must be a whole number";
  if (typeof r.text !== "string" || r.text.length > MAX_CHUNK_CHARS) return "text must be a string";
  if (!whole(r.start) || !whole(r.end) || (r.start as number) > (r.end as number))
    return "start and end must be offsets with start ≤ end";
  return undefined;
}

function vectorProblem(vector: Float32Array | null, dimensions: number | null): string | undefined {
  if (!vector) return "it has no vector";
  if (dimensions === null || vector.length !== dimensions)
    return `its vector has ${vector.length} dimensions, not ${dimensions ?? "none (the manifest says the index is empty)"}`;
  if (!vector.every(Number.isFinite)) return "its vector holds a value that is not a finite number";
  return undefined;
}
