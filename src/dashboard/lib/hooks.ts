/** Hooks shared by the screens: loading data, polling, the page title. */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "../api/client";

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  /** Loads again; keeps showing the old data meanwhile (no flicker while polling). */
  reload: () => Promise<void>;
  setData: (d: T) => void;
}

const asApiError = (e: unknown): ApiError =>
  e instanceof ApiError ? e : new ApiError(0, "client_error", e instanceof Error ? e.message : String(e));

/**
 * Runs `load` when `deps` change and tracks data, error and loading. An answer that
 * arrives after a newer request started is dropped, so fast typing in a search box
 * never shows stale results.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const seq = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  const reload = useCallback(async () => {
    const mine = ++seq.current;
    setLoading(true);
    try {
      const d = await loadRef.current();
      if (mine !== seq.current) return;
      setData(() => d);
      setError(undefined);
    } catch (e) {
      if (mine === seq.current) setError(asApiError(e));
    } finally {
      if (mine === seq.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    void reload();
  }, deps);

  return { data, error, loading, reload, setData: (d: T) => setData(() => d) };
}

/** Calls `tick` every `ms` while `active` and the tab is visible. */
export function usePoll(active: boolean, tick: () => unknown, ms = 1500): void {
  const tickRef = useRef(tick);
  tickRef.current = tick;
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => {
      if (document.visibilityState === "visible") tickRef.current();
    }, ms);
    return () => clearInterval(id);
  }, [active, ms]);
}

/** Sets the document title to "<title> · ragd". */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · ragd` : "ragd";
  }, [title]);
}

/** Runs an async action, exposing busy and error for a button and its message. */
export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const run = async (...args: A): Promise<R | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await fn(...args);
    } catch (e) {
      setError(asApiError(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, setError };
}

/**
 * A search box whose committed value lives in the URL. Typing is debounced before it is
 * committed, so each pause costs one request, not one per key; the box follows the URL
 * (back button, "clear") unless the user is typing in it (the input with `inputId`).
 * Returns the text in the box, its setter, and `commit` for an explicit submit.
 */
export function useSearchBox(committed: string, inputId: string, onCommit: (text: string) => void) {
  const [typed, setTyped] = useState(committed);
  useEffect(() => {
    if (document.activeElement?.id !== inputId) setTyped(committed);
  }, [committed]);
  useEffect(() => {
    if (typed.trim() === committed) return;
    const t = setTimeout(() => onCommit(typed.trim()), 250);
    return () => clearTimeout(t);
  }, [typed]);
  return { typed, setTyped, commit: () => onCommit(typed.trim()) };
}
