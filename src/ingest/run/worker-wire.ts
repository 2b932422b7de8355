/**
 * The main thread's messages of one turn to a worker, as one message. A structured clone
 * goes property by property, and a job carries its pipeline's settings (chunking, model,
 * embedding, fetch and OCR limits, some twenty values) beside its document: for 500
 * small documents the clone of those cost the main thread about as much as the rest of
 * their claim. Here the settings that jobs share travel once per turn. (As one JSON text
 * the turn cost as much again: its strings are scanned for escapes and copied twice.)
 * The jobs read back from one turn share their settings' objects; nothing changes them.
 */
import type { Job, ToWorker } from "../job-types";

/** What a job shares with the other jobs of its pipeline. */
type Settings = Omit<Job, "jobId" | "document" | "crawl" | "folder" | "git" | "bucket">;

type WireJob = Pick<Job, "jobId" | "document" | "crawl" | "folder" | "git" | "bucket"> & { settings: number };
type WireMessage = Exclude<ToWorker, { type: "job" }> | { type: "job"; job: WireJob };

export interface Wire {
  settings: Settings[];
  messages: WireMessage[];
}

/** The messages as a worker reads them back with decodeTurn. */
export function encodeTurn(messages: ToWorker[]): Wire {
  const settings: Settings[] = [];
  const wire: Wire = {
    settings,
    messages: messages.map((m) => {
      if (m.type !== "job") return m;
      const { jobId, document, crawl, folder, git, bucket, ...own } = m.job;
      let at = settings.findIndex((s) => Bun.deepEquals(s, own));
      if (at < 0) at = settings.push(own) - 1;
      return { type: "job", job: { jobId, document, crawl, folder, git, bucket, settings: at } };
    }),
  };
  return wire;
}

/** The messages encodeTurn wrote. */
export function decodeTurn(wire: Wire): ToWorker[] {
  return wire.messages.map((m) => {
    if (m.type !== "job") return m;
    const { settings, ...job } = m.job;
    return { type: "job", job: { ...wire.settings[settings]!, ...job } };
  });
}
