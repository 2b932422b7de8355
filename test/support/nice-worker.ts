// A thread that starts at nice `start`, then asks niceThisThread for `by` more, and says where it ended.
import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { niceThisThread } from "../../src/ingest/run/thread-priority";

declare const self: Worker;
self.onmessage = (e: MessageEvent<{ start: number; by: number }>) => {
  const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
  setPriority(tid, e.data.start);
  const set = niceThisThread(e.data.by);
  self.postMessage({ set, nice: getPriority(tid) });
};
