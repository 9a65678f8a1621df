/**
 * The metrics of one server instance (docs/operations.md "Metrics"): its own prom-client
 * registry — never the library's global one, so tests and several servers in one process do not
 * share counters — the few instruments the call pipeline, the audit sink and the HTTP adapter
 * update, and gauges read from the watched KB runtimes when Prometheus scrapes.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { AuditSink } from "../audit/types.js";
import type { KbRuntime } from "../runtime/kb-runtime.js";
import { CallInstruments, type CallMetrics } from "./call-metrics.js";
import { CounterSeries, registerCounter } from "./hot-series.js";
import { registerKbGauges } from "./kb-gauges.js";
import { type KbSnapshot, snapshotOf, type WatchedKb } from "./kb-snapshot.js";
import { methodLabel, routeTemplate } from "./labels.js";
import { meteredAuditSink } from "./metered-audit.js";
import { registerProcessGauges } from "./process-gauges.js";

/** Latency buckets (seconds): a cached read is well under a millisecond, a pass takes seconds. */
const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

/** The open connections and their cap, as the HTTP adapter counts them. */
export interface ConnectionSource {
  readonly open: number;
  readonly max: number;
}

export class ServerMetrics {
  readonly registry = new Registry();
  /** Given to the call pipeline (CallDeps.metrics). */
  readonly calls: CallMetrics;
  readonly #kbs = new Map<string, WatchedKb>();
  readonly #connections: ConnectionSource[] = [];
  /** By route template, method and status (hot-series.ts: counted on every request). */
  readonly #http = new Map<string, CounterSeries>();
  readonly #auditAppends: Counter<"result">;
  readonly #auditDuration: Histogram;
  /** The KB facts of the scrape under way, shared by every gauge of it (kb-snapshot.ts). */
  #snapshot: Promise<KbSnapshot[]> | null = null;

  constructor() {
    const registers = [this.registry];
    registerProcessGauges(this.registry);
    this.calls = new CallInstruments(this.registry, LATENCY_BUCKETS);
    registerCounter(
      this.registry,
      "cartographer_http_requests_total",
      "HTTP requests by route template, method and status",
      () => this.#http.values(),
    );
    this.#auditAppends = new Counter({
      name: "cartographer_audit_appends_total",
      help: "Audit log appends by result (failed: rejected, or dropped in best_effort mode)",
      labelNames: ["result"] as const,
      registers,
    });
    this.#auditDuration = new Histogram({
      name: "cartographer_audit_append_duration_seconds",
      help: "Audit append latency (fsync included)",
      buckets: LATENCY_BUCKETS,
      registers,
    });
    const connections = this.#connections;
    new Gauge({
      name: "cartographer_http_connections",
      help: "Open HTTP connections",
      registers,
      collect() {
        this.set(connections.reduce((n, c) => n + c.open, 0));
      },
    });
    new Gauge({
      name: "cartographer_http_connection_cap",
      help: "Connections served in full (max_connections)",
      registers,
      collect() {
        this.set(connections.reduce((n, c) => n + c.max, 0));
      },
    });
    registerKbGauges(this.registry, () => this.#snapshot ?? Promise.resolve([]));
  }

  /** Reports `runtime`'s index, sync, embeddings and in-flight calls as KB `name`. */
  watchKb(name: string, runtime: KbRuntime): void {
    this.#kbs.set(name, { name, runtime, since: Date.now() });
  }

  /** Reports the open connections of an HTTP server and its cap. */
  watchConnections(source: ConnectionSource): void {
    this.#connections.push(source);
  }

  /** `sink`, its appends counted and timed; its health reported as `cartographer_audit_healthy`. */
  meterAudit(sink: AuditSink): AuditSink {
    new Gauge({
      name: "cartographer_audit_healthy",
      help: "1 while the last audit append succeeded; mode is best_effort or required",
      labelNames: ["mode"] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        this.set({ mode: sink.mode }, sink.healthy() ? 1 : 0);
      },
    });
    return meteredAuditSink(sink, this.#auditAppends, this.#auditDuration);
  }

  /** Counts one answered HTTP request (its route template, never the raw path or query). */
  httpRequest(target: string, method: string, status: number): void {
    const query = target.indexOf("?");
    const pathname = query === -1 ? target : target.slice(0, query);
    const route = routeTemplate(pathname);
    const verb = methodLabel(method);
    const key = `${route}\u0000${verb}\u0000${status}`;
    let series = this.#http.get(key);
    if (series === undefined) {
      series = new CounterSeries({ route, method: verb, status: String(status) });
      this.#http.set(key, series);
    }
    series.value++;
  }

  /** The Prometheus text exposition of everything, with its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    const now = Date.now();
    const snapshot = Promise.all([...this.#kbs.values()].map((kb) => snapshotOf(kb, now)));
    this.#snapshot = snapshot;
    try {
      return { contentType: this.registry.contentType, body: await this.registry.metrics() };
    } finally {
      if (this.#snapshot === snapshot) this.#snapshot = null;
    }
  }
}
