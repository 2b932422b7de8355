/**
 * Labelled Prometheus counters and histograms, kept in memory and written in the
 * text exposition format. Knows nothing of ragd.
 */

export type Labels = Record<string, string>;

/** `a="1",b="2"`, values escaped as the format wants. */
export function labelText(labels: Labels): string {
  let out = "";
  for (const k in labels) {
    const v = labels[k]!;
    // Most values need no escape: skip the three replaces (this runs on every count).
    const escaped = NEEDS_ESCAPE.test(v) ? v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n") : v;
    out += `${out ? "," : ""}${k}="${escaped}"`;
  }
  return out;
}

const NEEDS_ESCAPE = /[\\"\n]/;

const braces = (text: string) => (text ? `{${text}}` : "");

/** A counter per label set. */
export class Counter {
  private readonly values = new Map<string, number>();

  constructor(
    readonly name: string,
    private readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = labelText(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }

  /** The current value of one label set (0 when never counted). */
  get(labels: Labels = {}): number {
    return this.values.get(labelText(labels)) ?? 0;
  }

  render(): string[] {
    const out = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [key, v] of this.values) out.push(`${this.name}${braces(key)} ${v}`);
    return out;
  }
}

interface HistogramSeries {
  count: number;
  sum: number;
  buckets: number[];
}

/** A histogram per label set, with fixed bucket bounds (seconds, usually). */
export class Histogram {
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly bounds: number[],
  ) {}

  observe(labels: Labels, value: number): void {
    const key = labelText(labels);
    let s = this.series.get(key);
    if (!s) {
      s = { count: 0, sum: 0, buckets: this.bounds.map(() => 0) };
      this.series.set(key, s);
    }
    s.count++;
    s.sum += value;
    for (let i = 0; i < this.bounds.length; i++) if (value <= this.bounds[i]!) s.buckets[i]!++;
  }

  render(): string[] {
    const out = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [key, s] of this.series) {
      const sep = key ? "," : "";
      this.bounds.forEach((b, i) => {
        out.push(`${this.name}_bucket{${key}${sep}le="${b}"} ${s.buckets[i]}`);
      });
      out.push(`${this.name}_bucket{${key}${sep}le="+Inf"} ${s.count}`);
      out.push(`${this.name}_sum${braces(key)} ${s.sum}`);
      out.push(`${this.name}_count${braces(key)} ${s.count}`);
    }
    return out;
  }
}

/** A gauge family read at scrape time: one value per label set. */
export function renderGauge(name: string, help: string, samples: [Labels, number][]): string[] {
  const out = [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`];
  for (const [labels, v] of samples) out.push(`${name}${braces(labelText(labels))} ${v}`);
  return out;
}
