/**
 * A cache of recently used entries, bounded by `max`: the newest max/2 keys set or found
 * always stay, and at most `max` are held. Two maps stand in for a strict LRU order. A
 * strict LRU moved every hit to the end of its map (a delete and a set); here a hit in the
 * young map is one lookup, and when the young map has max/2 keys it becomes the old one
 * and the old one is dropped. On the ingestion path the sink and the statement cache look
 * up a few keys per document: as a strict LRU, 3.5 % of the main thread's samples in
 * bench/batch.ts.
 */
export class RecentCache<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private readonly half: number;

  constructor(max: number) {
    this.half = Math.max(1, Math.floor(max / 2));
  }

  get(key: K): V | undefined {
    const v = this.young.get(key);
    if (v !== undefined || this.old.size === 0) return v;
    const aged = this.old.get(key);
    if (aged !== undefined) {
      this.old.delete(key);
      this.keep(key, aged);
    }
    return aged;
  }

  /** A copy of the key left in the old map is never read again: the young one is read first, and becomes the old. */
  set(key: K, value: V): void {
    this.keep(key, value);
  }

  delete(key: K): void {
    this.young.delete(key);
    this.old.delete(key);
  }

  private keep(key: K, value: V): void {
    this.young.set(key, value);
    if (this.young.size < this.half) return;
    this.old = this.young;
    this.young = new Map();
  }
}
