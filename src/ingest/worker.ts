/**
 * Worker thread entry: receives jobs from the pool and runs them one at a time,
 * so extraction, chunking and embedding never block the HTTP thread.
 */
import { runJob, type Job, type JobEvent } from "./job";

declare const self: Worker;

self.onmessage = async (event: MessageEvent<Job>) => {
  await runJob(event.data, (e: JobEvent, transfer?: ArrayBuffer[]) => self.postMessage(e, transfer ?? []));
};
