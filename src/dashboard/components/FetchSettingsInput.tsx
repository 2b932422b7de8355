/**
 * Refresh and crawl settings of a new web page or API source (docs/API.md, "Refresh
 * and crawl"): how often ragd fetches it again, and for a web page whether to crawl.
 */
import type { ApiError } from "../api/client";
import { fieldError } from "../api/client";
import { type Key, t } from "../i18n";
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
export const REFRESH_CHOICES: [string, Key][] = [
  ["", "refresh.never"],
  ["1h", "refresh.hour"],
  ["6h", "refresh.6hours"],
  ["1d", "refresh.day"],
  ["7d", "refresh.week"],
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
  kind: "url" | "api" | "folder" | "s3" | "git";
  value: FetchSettingsState;
  onChange: (v: FetchSettingsState) => void;
  error: ApiError | undefined;
}

export function FetchSettingsInput({ kind, value: v, onChange, error }: Props) {
  const set = (patch: Partial<FetchSettingsState>) => onChange({ ...v, ...patch });
  const crawlError = fieldError(error, "crawl");
  return (
    <div class="stack">
      <Field label={t("fetch.again")} hint={t("fetch.againHint")} error={fieldError(error, "refreshEvery")}>
        {(ids) => (
          <select {...ids} value={v.refreshEvery} onChange={(e) => set({ refreshEvery: e.currentTarget.value })}>
            {REFRESH_CHOICES.map(([value, label]) => (
              <option key={value} value={value}>
                {t(label)}
              </option>
            ))}
          </select>
        )}
      </Field>
      {kind === "url" && (
        <fieldset>
          <legend>{t("fetch.crawl")}</legend>
          <label class="check">
            <input type="checkbox" checked={v.crawl} onChange={(e) => set({ crawl: e.currentTarget.checked })} />
            <span>{t("fetch.follow")}</span>
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
        <span>{t("fetch.sitemap")}</span>
      </label>
      <label class="check">
        <input type="checkbox" checked={v.sameSite} onChange={(e) => set({ sameSite: e.currentTarget.checked })} />
        <span>{t("fetch.sameSite")}</span>
      </label>
      <NumberField
        label={t("fetch.depth")}
        hint={t("fetch.depthHint")}
        value={v.depth}
        min={0}
        max={10}
        onChange={(depth) => set({ depth })}
      />
      <NumberField
        label={t("fetch.maxPages")}
        value={v.maxPages}
        min={1}
        max={1000}
        onChange={(maxPages) => set({ maxPages })}
      />
      <Field label={t("fetch.include")} hint={t("fetch.includeHint")}>
        {(ids) => (
          <textarea {...ids} rows={2} value={v.include} onInput={(e) => set({ include: e.currentTarget.value })} />
        )}
      </Field>
      <Field label={t("fetch.exclude")} hint={t("fetch.excludeHint")}>
        {(ids) => (
          <textarea {...ids} rows={2} value={v.exclude} onInput={(e) => set({ exclude: e.currentTarget.value })} />
        )}
      </Field>
    </div>
  );
}
