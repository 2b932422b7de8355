/**
 * Reads a stored file where FileStore.readLocation says it is, in an ingestion worker.
 * A bucket's file comes as a time-limited GET URL rather than a local copy: nothing to
 * download beforehand in the main thread, and nothing to delete after the job or after
 * a crash. Extraction takes the whole file in memory either way (a path is read whole
 * too), so memory stays bounded by the upload limit the file was saved under.
 */
import { readFile } from "node:fs/promises";

export async function readStoredFile(location: string): Promise<Uint8Array> {
  if (!/^https?:\/\//.test(location)) return new Uint8Array(await readFile(location));
  const res = await fetch(location);
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(
      res.status === 404
        ? "the uploaded file is missing from the object store"
        : `the object store answered ${res.status} to reading the uploaded file`,
    );
  }
  return new Uint8Array(await res.arrayBuffer());
}
