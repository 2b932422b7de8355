/**
 * The playground's API key per pipeline, kept in sessionStorage: it lives as long
 * as the browser tab and is never written to disk by the dashboard.
 */
const slot = (pipelineId: string) => `ragd.playground.${pipelineId}`;

/** The stored key of a pipeline, if any. */
export function loadPlaygroundKey(pipelineId: string): string | null {
  try {
    return sessionStorage.getItem(slot(pipelineId));
  } catch {
    return null;
  }
}

/** Keeps a key for this tab. */
export function savePlaygroundKey(pipelineId: string, key: string): void {
  try {
    sessionStorage.setItem(slot(pipelineId), key);
  } catch {
    // storage disabled: the key just is not remembered
  }
}

/** Forgets the stored key; with `prefix`, only when it is that key (it was revoked). */
export function forgetPlaygroundKey(pipelineId: string, prefix?: string): void {
  const k = loadPlaygroundKey(pipelineId);
  if (k && (!prefix || k.startsWith(prefix))) sessionStorage.removeItem(slot(pipelineId));
}
