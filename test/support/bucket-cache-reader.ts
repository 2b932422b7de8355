/**
 * A second process reading a bucket's table through the bucket cache (vectors/bucket-cache.ts),
 * as a restarted server would: opens the cache on the directory given, runs one vector
 * and one keyword search, and prints the hits and the cache's counters as JSON.
 * Usage: bun test/support/bucket-cache-reader.ts '<json of CacheReaderJob>'
 */
import type { ObjectStorage } from "../../src/config-storage";
import { startBucketCache } from "../../src/vectors/bucket-cache";
import { openLance } from "../../src/vectors/connection";
import { VectorStore } from "../../src/vectors/store";
import { vectorOf } from "./vector-writer";

export interface CacheReaderJob {
  storage: ObjectStorage;
  dir: string;
  collectionId: string;
}

/** The hits of both searches, as `document:chunk`. */
export async function searchBoth(vectorStore: VectorStore, collectionId: string): Promise<string[]> {
  const near = await vectorStore.search(collectionId, 1, { mode: "vector", text: "", vector: vectorOf(201), topK: 5 });
  const words = await vectorStore.search(collectionId, 1, { mode: "keyword", text: "glaciers", topK: 50 });
  return [...near, ...words].map((h) => `${h.documentId}:${h.chunkIndex}`);
}

if (import.meta.main) {
  const job = JSON.parse(process.argv[2]!) as CacheReaderJob;
  const cache = startBucketCache(job.storage, { dir: job.dir, maxBytes: 256 * 2 ** 20 });
  const vectorStore = new VectorStore(await openLance(job.storage, undefined, cache));
  const hits = await searchBoth(vectorStore, job.collectionId);
  console.log(JSON.stringify({ hits, counters: cache.counters }));
  vectorStore.close();
  cache.stop();
}
