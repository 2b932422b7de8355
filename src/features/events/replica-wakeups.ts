/**
 * Event wake-ups across replicas. Within one process, a transaction that writes events
 * wakes the streams waiting for them (ingest/events.ts `notifier`); events another replica
 * wrote wake nobody here. So a replica looks at the events table's last id every half
 * second (services.ts, tools/scheduler.ts) and, when it moved, wakes every stream, which reads what is new for it. One
 * indexed read per interval, whatever the number of streams; PostgreSQL's LISTEN/NOTIFY
 * would save it, but Bun's driver does not offer LISTEN.
 */
import { lastEventId } from "../../db/repo/events";
import type { Store } from "../../db/store";
import { notifier } from "../../ingest/events";
import type { Logger } from "../../log";

export class ReplicaWakeups {
  private last = 0;
  private reading = false;

  constructor(
    private readonly db: Store,
    private readonly log: Logger,
  ) {}

  /** Reads where the events stand now; look() then wakes the streams when they move. */
  async start(): Promise<void> {
    this.last = await lastEventId(this.db.reader);
  }

  look(): void {
    if (this.reading) return;
    this.reading = true;
    void lastEventId(this.db.reader)
      .then((id) => {
        if (id === this.last) return;
        this.last = id;
        notifier.note(null);
      })
      .catch((err) => this.log.warn("could not look for other replicas' events", { error: err }))
      .finally(() => (this.reading = false));
  }
}
