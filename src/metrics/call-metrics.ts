/**
 * The call pipeline's one metrics hook (docs/decisions.md "Metrics: one hook at the end of a
 * call"): told once per call, at its end, and cheap — one Map lookup per call finds the call's
 * counter and histogram series (hot-series.ts), then a few adds.
 */
import type { Registry } from "prom-client";
import type { AuditOutcome } from "../audit/types.js";
import {
  CounterSeries,
  HistogramSeries,
  registerCounter,
  registerHistogram,
} from "./hot-series.js";
import { UNKNOWN_TOOL } from "./labels.js";

/** What the pipeline tells at the end of a call (src/mcp/call-pipeline.ts CallDeps.metrics). */
export interface CallMetrics {
  /**
   * `tool` is the registered tool's name, undefined when the client named no registered tool
   * (it is counted as `unknown`: a name a client made up is not a label value). `startedAt` is
   * the call's `performance.now()` at its start.
   */
  called(
    kb: string,
    tool: string | undefined,
    outcome: AuditOutcome,
    transport: string,
    startedAt: number,
  ): void;
}

/** The tool whose calls are the search latency (`cartographer_search_duration_seconds`). */
const SEARCH_TOOL = "search";

interface CallSeries {
  calls: CounterSeries;
  duration: HistogramSeries;
  search: HistogramSeries | null;
}

export class CallInstruments implements CallMetrics {
  /** By kb, tool, outcome and transport; the histograms are shared across outcomes. */
  readonly #byCall = new Map<string, CallSeries>();
  readonly #durations = new Map<string, HistogramSeries>();
  readonly #searches = new Map<string, HistogramSeries>();

  constructor(
    registry: Registry,
    private readonly buckets: readonly number[],
  ) {
    registerCounter(
      registry,
      "cartographer_tool_calls_total",
      "Tool calls by tool, KB, outcome and transport",
      () => [...this.#byCall.values()].map((s) => s.calls),
    );
    registerHistogram(
      registry,
      "cartographer_tool_call_duration_seconds",
      "Tool call latency, authorization and audit included",
      buckets,
      () => this.#durations.values(),
    );
    registerHistogram(
      registry,
      "cartographer_search_duration_seconds",
      "Latency of search calls",
      buckets,
      () => this.#searches.values(),
    );
  }

  called(
    kb: string,
    tool: string | undefined,
    outcome: AuditOutcome,
    transport: string,
    startedAt: number,
  ): void {
    const name = tool ?? UNKNOWN_TOOL;
    const key = `${kb}\u0000${name}\u0000${outcome}\u0000${transport}`;
    const series = this.#byCall.get(key) ?? this.#add(key, kb, name, outcome, transport);
    const seconds = (performance.now() - startedAt) / 1000;
    series.calls.value++;
    series.duration.observe(seconds);
    series.search?.observe(seconds);
  }

  #add(key: string, kb: string, tool: string, outcome: string, transport: string): CallSeries {
    const durationKey = `${kb}\u0000${tool}\u0000${transport}`;
    let duration = this.#durations.get(durationKey);
    if (duration === undefined) {
      duration = new HistogramSeries({ tool, kb, transport }, this.buckets);
      this.#durations.set(durationKey, duration);
    }
    let search: HistogramSeries | null = null;
    if (tool === SEARCH_TOOL) {
      search = this.#searches.get(kb) ?? new HistogramSeries({ kb }, this.buckets);
      this.#searches.set(kb, search);
    }
    const series = { calls: new CounterSeries({ tool, kb, outcome, transport }), duration, search };
    this.#byCall.set(key, series);
    return series;
  }
}
