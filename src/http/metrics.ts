/**
 * Prometheus metrics kept in memory: request counts and latency histograms by
 * method, route template and status, plus gauges other parts register.
 */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Series {
  labels: string;
  count: number;
  sum: number;
  buckets: number[];
}

export class Metrics {
  private readonly series = new Map<string, Series>();
  private readonly gauges: { name: string; help: string; read: () => number }[] = [];
  private readonly collectors: { name: string; lines: () => string[] | Promise<string[]> }[] = [];

  /** Records one finished request. */
  observe(method: string, route: string, status: number, seconds: number): void {
    const labels = `method="${method}",route="${escapeLabel(route)}",status="${status}"`;
    let s = this.series.get(labels);
    if (!s) {
      s = { labels, count: 0, sum: 0, buckets: BUCKETS.map(() => 0) };
      this.series.set(labels, s);
    }
    s.count++;
    s.sum += seconds;
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) s.buckets[i]!++;
  }

  /** Adds a gauge read at scrape time. */
  gauge(name: string, help: string, read: () => number): void {
    this.gauges.push({ name, help, read });
  }

  /**
   * Adds metric families written at scrape time (tools/prom.ts writes them). One that
   * fails is left out of that scrape, never the whole exposition.
   */
  collect(name: string, lines: () => string[] | Promise<string[]>): void {
    this.collectors.push({ name, lines });
  }

  /** The Prometheus text exposition. */
  async render(): Promise<string> {
    const out: string[] = [
      "# HELP ragd_http_requests_total HTTP requests by method, route and status.",
      "# TYPE ragd_http_requests_total counter",
    ];
    for (const s of this.series.values()) out.push(`ragd_http_requests_total{${s.labels}} ${s.count}`);
    out.push(
      "# HELP ragd_http_request_duration_seconds HTTP request latency.",
      "# TYPE ragd_http_request_duration_seconds histogram",
    );
    for (const s of this.series.values()) {
      BUCKETS.forEach((b, i) => {
        out.push(`ragd_http_request_duration_seconds_bucket{${s.labels},le="${b}"} ${s.buckets[i]}`);
      });
      out.push(`ragd_http_request_duration_seconds_bucket{${s.labels},le="+Inf"} ${s.count}`);
      out.push(`ragd_http_request_duration_seconds_sum{${s.labels}} ${s.sum}`);
      out.push(`ragd_http_request_duration_seconds_count{${s.labels}} ${s.count}`);
    }
    for (const g of this.gauges) {
      out.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} gauge`, `${g.name} ${g.read()}`);
    }
    for (const c of this.collectors) {
      try {
        out.push(...(await c.lines()));
      } catch {
        out.push(`# ${c.name}: not available in this scrape`);
      }
    }
    return `${out.join("\n")}\n`;
  }
}

const escapeLabel = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
