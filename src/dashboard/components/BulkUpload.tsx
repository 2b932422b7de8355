/**
 * Many files at once: a few uploads at a time, one progress view for the whole set
 * (bytes and files), and every file that failed listed with why. Cancel stops what is
 * under way and sends nothing more.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { ApiError } from "../api/client";
import type { UploadProgress } from "../api/upload";
import { t } from "../i18n";
import { formatBytes } from "../lib/format";
import type { PickedFile } from "../lib/picked-files";
import { ProgressBar } from "./ProgressBar";

/** Uploads at once: enough to keep the connection busy, few enough not to swamp the server. */
const CONCURRENCY = 3;

export type SendFile = (p: PickedFile, onProgress: (p: UploadProgress) => void, signal: AbortSignal) => Promise<void>;

interface Failure {
  path: string;
  message: string;
}

/**
 * Runs the set's uploads on mount. When every file went, `onClose` is called at once with
 * how many; when some failed, the summary and the failures stay until the user closes them.
 */
export function BulkUpload({
  picked,
  send,
  onFileDone,
  onClose,
}: {
  picked: PickedFile[];
  send: SendFile;
  /** After each file, uploaded or not: the list behind can show it. */
  onFileDone: () => void;
  onClose: (uploaded?: number) => void;
}) {
  const total = picked.reduce((n, p) => n + p.file.size, 0);
  const [sentBytes, setSentBytes] = useState(0);
  const [done, setDone] = useState(0);
  const [failures, setFailures] = useState<Failure[]>([]);
  const [running, setRunning] = useState(true);
  const abort = useRef(new AbortController());
  // The latest callbacks, so that a parent's re-render never starts the set again.
  const latest = useRef({ send, onFileDone, onClose });
  latest.current = { send, onFileDone, onClose };

  useEffect(() => {
    const inFlight = new Map<number, number>();
    let finishedBytes = 0;
    let next = 0;
    const show = () => setSentBytes(finishedBytes + [...inFlight.values()].reduce((a, b) => a + b, 0));
    let failed = 0;
    const worker = async () => {
      while (next < picked.length && !abort.current.signal.aborted) {
        const i = next++;
        const p = picked[i]!;
        try {
          await latest.current.send(p, (pr) => (inFlight.set(i, pr.loaded), show()), abort.current.signal);
        } catch (e) {
          const err = e as ApiError;
          if (err.code !== "aborted") {
            failed++;
            setFailures((f) => [...f, { path: p.path, message: err.message }]);
          }
        }
        inFlight.delete(i);
        finishedBytes += p.file.size;
        show();
        setDone((d) => d + 1);
        latest.current.onFileDone();
      }
    };
    void Promise.all(Array.from({ length: Math.min(CONCURRENCY, picked.length) }, worker)).then(() => {
      if (failed === 0 && !abort.current.signal.aborted) latest.current.onClose(picked.length);
      else setRunning(false);
    });
    return () => abort.current.abort();
  }, [picked]);

  return (
    <div class="stack-sm" data-testid="bulk-upload">
      <div class="upload-status">
        <ProgressBar
          label={t("upload.progress")}
          value={sentBytes}
          max={total}
          text={`${t("bulk.files", { done, total: picked.length })} · ${t("upload.of", { done: formatBytes(sentBytes), total: formatBytes(total) })}`}
        />
        {running ? (
          <button type="button" class="btn btn-small" onClick={() => abort.current.abort()}>
            {t("common.cancel")}
          </button>
        ) : (
          <button type="button" class="btn btn-small" onClick={() => onClose()}>
            {t("bulk.close")}
          </button>
        )}
      </div>
      {!running && <p role="status">{t("bulk.summary", { ok: done - failures.length, failed: failures.length })}</p>}
      {failures.length > 0 && (
        <section class="note note-error" aria-labelledby="bulk-failed-h">
          <h3 id="bulk-failed-h">{t("bulk.failures")}</h3>
          <ul aria-label={t("bulk.failures")}>
            {failures.map((f) => (
              <li key={f.path}>
                <code>{f.path}</code>: {f.message}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
