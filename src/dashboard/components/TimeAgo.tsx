/** A time shown as "3 minutes ago", the full date on hover, machine-readable for assistive tech. */
import { formatDate, timeAgo } from "../lib/format";

export function TimeAgo({ at }: { at: string }) {
  return (
    <time dateTime={at} title={formatDate(at)}>
      {timeAgo(at)}
    </time>
  );
}
