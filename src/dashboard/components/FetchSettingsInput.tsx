/**
 * Refresh and crawl settings of a new web page or API source (docs/API.md, "Refresh
 * and crawl"): how often ragd fetches it again, and for a web page whether to crawl.
 */
import type { ApiError } from "../api/client";
import { fieldError } from "../api/client";
import { Field } from "./Field";
import { NumberField } from "./NumberField";

export interface FetchSettingsState {
  refreshEvery: string;
  crawl: boolean;
  depth: number | null;
  maxPages: number | null;
  sameSite: boolean;
  include: string;
  exclude: string;
  sitemap: boolean;
}

export const NO_FETCH_SETTINGS: FetchSettingsState = {
  refreshEvery: "",
  crawl: false,
  depth: 2,
  maxPages: 100,
  sameSite: true,
  include: "",
  exclude: "",
  sitemap: false,
};

/** The schedules the menus offer: a duration ragd accepts, and its label. */
export const REFRESH_CHOICES: [string, string][] = [
  ["", "Never (only when asked)"],
  ["1h", "Every hour"],
  ["6h", "Every 6 hours"],
  ["1d", "Every day"],
  ["7d", "Every week"],
];

const lines = (s: string) =>
  s
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

/** The request fields these settings add to a new source. */
export function fetchSettingsBody(s: FetchSettingsState, kind: string): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (s.refreshEvery) body.refreshEvery = s.refreshEvery;
  if (kind === "url" && s.crawl) {
    body.crawl = {
      depth: s.depth ?? 2,
      maxPages: s.maxPages ?? 100,
      sameSite: s.sameSite,
      include: lines(s.include),
      exclude: lines(s.exclude),
      sitemap: s.sitemap,
    };
  }
  return body;
}

interface Props {
  kind: "url" | "api";
  value: FetchSettingsState;
  onChange: (v: FetchSettingsState) => void;
  error: ApiError | undefined;
}

export function FetchSettingsInput({ kind, value: v, onChange, error }: Props) {
  const set = (patch: Partial<FetchSettingsState>) => onChange({ ...v, ...patch });
  const crawlError = fieldError(error, "crawl");
  return (
    <div class="stack">
      <Field
        label="Fetch again"
        hint="ragd asks for the page again on this schedule and embeds it again only when its text changed."
        error={fieldError(error, "refreshEvery")}
      >
        {(ids) => (
          <select {...ids} value={v.refreshEvery} onChange={(e) => set({ refreshEvery: e.currentTarget.value })}>
            {REFRESH_CHOICES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {kind === "url" && (
        <fieldset>
          <legend>Crawl</legend>
          <label class="check">
            <input type="checkbox" checked={v.crawl} onChange={(e) => set({ crawl: e.currentTarget.checked })} />
            <span>Follow links: each page found becomes a source of its own</span>
          </label>
          {v.crawl && <CrawlFields v={v} set={set} />}
          {crawlError && <p class="field-error">{crawlError}</p>}
        </fieldset>
      )}
    </div>
  );
}

function CrawlFields({ v, set }: { v: FetchSettingsState; set: (p: Partial<FetchSettingsState>) => void }) {
  return (
    <div class="stack">
      <label class="check">
        <input type="checkbox" checked={v.sitemap} onChange={(e) => set({ sitemap: e.currentTarget.checked })} />
        <span>The address is a sitemap: crawl the pages it lists</span>
      </label>
      <label class="check">
        <input type="checkbox" checked={v.sameSite} onChange={(e) => set({ sameSite: e.currentTarget.checked })} />
        <span>Only pages on the same site</span>
      </label>
      <NumberField
        label="Depth"
        hint="Links followed from the start page; 0 takes only the start page (or the sitemap's pages)."
        value={v.depth}
        min={0}
        max={10}
        onChange={(depth) => set({ depth })}
      />
      <NumberField
        label="Pages at most"
        value={v.maxPages}
        min={1}
        max={1000}
        onChange={(maxPages) => set({ maxPages })}
      />
      <Field label="Only paths matching" hint="One pattern a line, * for anything: /docs/*. Empty: every page.">
        {(ids) => (
          <textarea {...ids} rows={2} value={v.include} onInput={(e) => set({ include: e.currentTarget.value })} />
        )}
      </Field>
      <Field label="Skip paths matching" hint="One pattern a line, e.g. /archive/*.">
        {(ids) => (
          <textarea {...ids} rows={2} value={v.exclude} onInput={(e) => set({ exclude: e.currentTarget.value })} />
        )}
      </Field>
    </div>
  );
}
