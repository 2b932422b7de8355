/**
 * What a web page or API source's fetches say (docs/API.md, "Refresh and crawl"):
 * when ragd last checked it and when its text last changed, its schedule, and for
 * a crawl what the last crawl found, with the pages it skipped and why.
 */
import type { Source } from "../api/types";
import { plural } from "../lib/format";
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
  const units: [number, string][] = [
    [604_800, "week"],
    [86_400, "day"],
    [3600, "hour"],
    [60, "minute"],
  ];
  for (const [size, name] of units)
    if (seconds % size === 0) return seconds === size ? `every ${name}` : `every ${plural(seconds / size, name)}`;
  return `every ${plural(seconds, "second")}`;
}

export function SourceFetchInfo({ source: s }: { source: Source }) {
  if (s.type !== "url" && s.type !== "api") return null;
  const report = (s.crawlReport ?? null) as CrawlReport | null;
  return (
    <div class="small muted">
      <p>
        {s.crawlSourceId && "A page of a crawl · "}
        {s.lastCheckedAt ? (
          <>
            Checked <TimeAgo at={s.lastCheckedAt} />
          </>
        ) : (
          "Not checked yet"
        )}
        {s.lastChangedAt && (
          <>
            {" "}
            · changed <TimeAgo at={s.lastChangedAt} />
          </>
        )}
        {s.refreshEvery ? ` · fetched again ${every(s.refreshEvery)}` : ""}
      </p>
      {s.crawl && report && (
        <details>
          <summary>
            Crawl: {plural(report.pages, "page")} · {report.added} added, {report.changed} changed, {report.removed}{" "}
            removed
            {report.skipped.length > 0 && ` · ${report.skipped.length} skipped`}
            {report.leftOver > 0 &&
              ` · ${plural(report.leftOver, "link")} left (${report.stoppedEarly ? "out of time" : "page limit"})`}
          </summary>
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
