/**
 * Appending an Arrow table to a LanceDB table without LanceDB's two copies of it.
 * Table.add serialises the rows to Arrow IPC, joins the writer's pieces into a new array,
 * then copies that into a new Buffer for the native side: two copies of every row into
 * fresh memory, whose first touch costs a page fault per 4 KiB. Here the pieces are copied
 * once, into a buffer kept for reuse, and handed to the native add with no further copy
 * in JavaScript.
 */
import type { Table } from "@lancedb/lancedb";
import * as arrow from "apache-arrow";
import { joinBytes } from "../tools/bytes";

type NativeAdd = { add(buf: Buffer, mode: string): Promise<unknown> };

/** Buffers of finished adds, reused by the next ones (the native side reads a buffer until its add ends). */
class BufferPool {
  private readonly free: Buffer[] = [];
  constructor(
    private readonly keep: number,
    private readonly largest: number,
  ) {}

  take(size: number): Buffer {
    const i = this.free.findIndex((b) => b.length >= size);
    if (i >= 0) return this.free.splice(i, 1)[0]!;
    return Buffer.allocUnsafeSlow(Math.max(size, 1 << 20));
  }

  /** Keeps `buf` for later unless it is larger than `largest`; beyond `keep` buffers, the largest goes. */
  give(buf: Buffer): void {
    if (buf.length > this.largest) return;
    this.free.push(buf);
    if (this.free.length > this.keep) this.free.sort((a, b) => a.length - b.length).pop();
  }
}

/** At most 4 × 16 MiB kept: a batch of 500 short documents serialises to about 5 MiB. */
const pool = new BufferPool(4, 16 << 20);

/** Appends `data` to `table` in one commit, as table.add(data) does. */
export async function addArrow(table: Table, data: arrow.Table): Promise<void> {
  const native = (table as unknown as { inner?: NativeAdd }).inner;
  if (typeof native?.add !== "function") {
    await table.add(data);
    return;
  }
  const pieces: Uint8Array[] = [];
  let size = 0;
  for await (const piece of arrow.RecordBatchFileWriter.writeAll(data)) {
    pieces.push(piece);
    size += piece.byteLength;
  }
  const buf = pool.take(size);
  joinBytes(pieces, buf);
  try {
    await native.add(buf.subarray(0, size), "append");
  } finally {
    pool.give(buf);
  }
}
