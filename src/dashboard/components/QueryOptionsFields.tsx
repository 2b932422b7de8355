/**
 * The playground's controls for the query options (docs/API.md, Query options):
 * highlights, expand, groupBy/perSource, facets and boost. `optionsOf` turns what was
 * typed into the request's fields; an option left at its blank state is not sent.
 */
import type { SearchRequest } from "../../retrieval/request";
import { t } from "../i18n";
import { Field } from "./Field";
import { NumberField } from "./NumberField";

/** What the controls hold: numbers may be null (an empty box), text as typed. */
export interface QueryOptionsState {
  highlights: boolean;
  expandChars: number | null;
  groupBy: boolean;
  perSource: number | null;
  facets: string;
  boostMatch: string;
  halfLifeDays: number | null;
  dateKey: string;
}

export const BLANK_OPTIONS: QueryOptionsState = {
  highlights: false,
  expandChars: null,
  groupBy: false,
  perSource: null,
  facets: "",
  boostMatch: "",
  halfLifeDays: null,
  dateKey: "",
};

type Options = Pick<SearchRequest, "highlights" | "expand" | "groupBy" | "perSource" | "facets" | "boost">;

/** The request fields the state asks for. */
export function optionsOf(s: QueryOptionsState): Options {
  const out: Options = {};
  if (s.highlights) out.highlights = true;
  if (s.expandChars) out.expand = { chars: s.expandChars };
  if (s.groupBy) {
    out.groupBy = "source";
    if (s.perSource) out.perSource = s.perSource;
  }
  const facets = splitList(s.facets);
  if (facets.length > 0) out.facets = facets;
  const match = matchOf(s.boostMatch);
  const boost: NonNullable<Options["boost"]> = {};
  if (Object.keys(match).length > 0) boost.match = match;
  if (s.halfLifeDays)
    boost.recency = { halfLifeDays: s.halfLifeDays, ...(s.dateKey.trim() ? { key: s.dateKey.trim() } : {}) };
  if (boost.match || boost.recency) out.boost = boost;
  return out;
}

const splitList = (text: string) =>
  text
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

/** `team=hr, draft=true, year=2024`: each value a boolean, a number or else a string. */
function matchOf(text: string): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const pair of splitList(text)) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const raw = pair.slice(at + 1).trim();
    const n = Number(raw);
    out[pair.slice(0, at).trim()] =
      raw === "true" ? true : raw === "false" ? false : raw !== "" && !Number.isNaN(n) ? n : raw;
  }
  return out;
}

interface Props {
  value: QueryOptionsState;
  onChange: (next: QueryOptionsState) => void;
}

/** The options, in one fieldset under the query. */
export function QueryOptionsFields({ value: v, onChange }: Props) {
  const set = (p: Partial<QueryOptionsState>) => onChange({ ...v, ...p });
  return (
    <fieldset class="stack" data-testid="query-options">
      <legend>{t("playground.options")}</legend>
      <label class="check">
        <input type="checkbox" checked={v.highlights} onChange={(e) => set({ highlights: e.currentTarget.checked })} />
        <span>{t("playground.highlights")}</span>
      </label>
      <div class="grid-2">
        <NumberField
          label={t("playground.expand")}
          hint={t("playground.expandHint")}
          value={v.expandChars}
          onChange={(expandChars) => set({ expandChars })}
          min={1}
          max={5000}
        />
        <div class="stack">
          <label class="check">
            <input type="checkbox" checked={v.groupBy} onChange={(e) => set({ groupBy: e.currentTarget.checked })} />
            <span>{t("playground.groupBy")}</span>
          </label>
          {v.groupBy && (
            <NumberField
              label={t("playground.perSource")}
              value={v.perSource}
              onChange={(perSource) => set({ perSource })}
              min={1}
              max={10}
            />
          )}
        </div>
      </div>
      <Field label={t("playground.facets")} hint={t("playground.facetsHint")}>
        {(ids) => <input {...ids} value={v.facets} onInput={(e) => set({ facets: e.currentTarget.value })} />}
      </Field>
      <Field label={t("playground.boostMatch")} hint={t("playground.boostMatchHint")}>
        {(ids) => <input {...ids} value={v.boostMatch} onInput={(e) => set({ boostMatch: e.currentTarget.value })} />}
      </Field>
      <div class="grid-2">
        <NumberField
          label={t("playground.halfLife")}
          hint={t("playground.halfLifeHint")}
          value={v.halfLifeDays}
          onChange={(halfLifeDays) => set({ halfLifeDays })}
          min={0.001}
          max={36500}
          step={0.001}
          inputMode="decimal"
        />
        <Field label={t("playground.dateKey")} hint={t("playground.dateKeyHint")}>
          {(ids) => <input {...ids} value={v.dateKey} onInput={(e) => set({ dateKey: e.currentTarget.value })} />}
        </Field>
      </div>
    </fieldset>
  );
}
