/**
 * What a web page or API source's fetches say (docs/API.md, "Refresh and crawl"):
 * when ragd last checked it and when its text last changed, its schedule, and for
 * a crawl what the last crawl found, with the pages it skipped and why; for a folder
 * source what its last sync did, with the files it could not take and why.
 */
import type { Source } from "../api/types";
import { type Key, rich, t } from "../i18n";
import { TimeAgo } from "./TimeAgo";

interface CrawlReport {
  pages: number;
  added: number;
  changed: number;
  removed: number;
  leftOver: number;
  stoppedEarly?: boolean;
  skipped: { url: string; reason: string }[];
}

/** "every 6 hours" from seconds. */
function every(seconds: number): string {
  const units: [number, Key][] = [
    [604_800, "every.week"],
    [86_400, "every.day"],
    [3600, "every.hour"],
    [60, "every.minute"],
  ];
  for (const [size, key] of units) if (seconds % size === 0) return t(key, { count: seconds / size });
  return t("every.second", { count: seconds });
}

/** The crawl's summary line. */
function crawlLine(r: CrawlReport): string {
  const parts = [
    t("count.pages", { count: r.pages }),
    t("fetchInfo.crawlCounts", { added: r.added, changed: r.changed, removed: r.removed }),
  ];
  if (r.skipped.length > 0) parts.push(t("fetchInfo.skipped", { n: r.skipped.length }));
  if (r.leftOver > 0) {
    const why = r.stoppedEarly ? t("fetchInfo.outOfTime") : t("fetchInfo.pageLimit");
    parts.push(t("fetchInfo.left", { links: t("count.links", { count: r.leftOver }), why }));
  }
  return t("fetchInfo.crawl", { summary: parts.join(" · ") });
}

export function SourceFetchInfo({ source: s }: { source: Source }) {
  if (!["url", "api", "folder", "git", "s3"].includes(s.type)) return null;
  const sync = s.syncReport ?? null;
  const report = (s.crawlReport ?? null) as CrawlReport | null;
  return (
    <div class="small muted">
      <p>
        {s.crawlSourceId && `${t("fetchInfo.crawlPage")} · `}
        {s.lastCheckedAt
          ? rich("fetchInfo.checked", { when: <TimeAgo at={s.lastCheckedAt} /> })
          : t("fetchInfo.notChecked")}
        {s.lastChangedAt && <> · {rich("fetchInfo.changed", { when: <TimeAgo at={s.lastChangedAt} /> })}</>}
        {s.refreshEvery ? ` · ${t("fetchInfo.again", { every: every(s.refreshEvery) })}` : ""}
      </p>
      {sync && (
        <details>
          <summary>
            {t("fetchInfo.sync", {
              added: sync.added,
              changed: sync.changed,
              deleted: sync.deleted,
              unchanged: sync.unchanged,
              failed: sync.failed,
            })}
          </summary>
          <ul>
            {sync.failures.map((x) => (
              <li key={x.path} class="break">
                <code>{x.path}</code>: {x.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
      {s.crawl && report && (
        <details>
          <summary>{crawlLine(report)}</summary>
          <ul>
            {report.skipped.map((x) => (
              <li key={x.url} class="break">
                <code>{x.url}</code>: {x.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
