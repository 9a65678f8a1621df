/**
 * Counters and histograms for the call path, kept as plain numbers and turned into prom-client
 * metrics only when Prometheus scrapes (docs/decisions.md "Metrics: one hook at the end of a
 * call"). prom-client hashes the label object on every `inc`/`observe`, even through a cached
 * child (~5 µs a call on the bench machine); here a call is one Map lookup and a few adds.
 */
import type { Metric, Registry } from "prom-client";

type Labels = Readonly<Record<string, string>>;

export class CounterSeries {
  value = 0;
  constructor(readonly labels: Labels) {}
}

export class HistogramSeries {
  /** Observations per bucket (not cumulative; the last slot is above every bound). */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > (this.bounds[i] as number)) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += value;
    this.count++;
  }
}

interface Exported {
  metricName?: string;
  labels: Record<string, string>;
  value: number;
}

/** Registers a counter named `name` whose samples are `series()` at scrape time. */
export function registerCounter(
  registry: Registry,
  name: string,
  help: string,
  series: () => Iterable<CounterSeries>,
): void {
  register(registry, name, help, "counter", () =>
    [...series()].map((s) => ({ labels: { ...s.labels }, value: s.value })),
  );
}

/** Registers a histogram named `name` (buckets `bounds`) over `series()` at scrape time. */
export function registerHistogram(
  registry: Registry,
  name: string,
  help: string,
  bounds: readonly number[],
  series: () => Iterable<HistogramSeries>,
): void {
  register(registry, name, help, "histogram", () => {
    const out: Exported[] = [];
    for (const s of series()) {
      let cumulative = 0;
      bounds.forEach((le, i) => {
        cumulative += s.counts[i] as number;
        out.push({
          metricName: `${name}_bucket`,
          labels: { ...s.labels, le: String(le) },
          value: cumulative,
        });
      });
      out.push({
        metricName: `${name}_bucket`,
        labels: { ...s.labels, le: "+Inf" },
        value: s.count,
      });
      out.push({ metricName: `${name}_sum`, labels: { ...s.labels }, value: s.sum });
      out.push({ metricName: `${name}_count`, labels: { ...s.labels }, value: s.count });
    }
    return out;
  });
}

function register(
  registry: Registry,
  name: string,
  help: string,
  type: "counter" | "histogram",
  values: () => Exported[],
): void {
  // The registry reads only `name`, `help`, `type` and `get()` of a metric.
  const metric = {
    name,
    help,
    type,
    get: async () => ({ name, help, type, values: values(), aggregator: "sum" }),
  };
  registry.registerMetric(metric as unknown as Metric);
}
