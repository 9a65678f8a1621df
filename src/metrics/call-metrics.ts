/**
 * The call pipeline's one metrics hook (docs/decisions.md "Metrics: one hook at the end of a
 * call"): told once per call, at its end, and cheap — the labelled children of the counter and
 * the histograms are cached per label set, so a call costs one Map lookup, one add and one or
 * two observes.
 */
import type { Counter, Histogram } from "prom-client";
import { UNKNOWN_TOOL } from "./labels.js";

/** What the pipeline tells at the end of a call (src/mcp/call-pipeline.ts CallDeps.metrics). */
export interface CallMetrics {
  /**
   * `tool` is the registered tool's name, undefined when the client named no registered tool
   * (it is counted as `unknown`: a name a client made up is not a label value).
   */
  called(
    kb: string,
    tool: string | undefined,
    outcome: string,
    transport: string,
    ms: number,
  ): void;
}

/** The tool whose calls are the search latency (`cartographer_search_duration_seconds`). */
const SEARCH_TOOL = "search";

interface Children {
  calls: Counter.Internal;
  duration: Histogram.Internal<string>;
  search: Histogram.Internal<string> | null;
}

export class CallInstruments implements CallMetrics {
  readonly #children = new Map<string, Children>();

  constructor(
    private readonly calls: Counter<"tool" | "kb" | "outcome" | "transport">,
    private readonly duration: Histogram<"tool" | "kb" | "transport">,
    private readonly search: Histogram<"kb">,
  ) {}

  called(
    kb: string,
    tool: string | undefined,
    outcome: string,
    transport: string,
    startedAt: number,
  ) {
    const name = tool ?? UNKNOWN_TOOL;
    const key = `${kb}\u0000${name}\u0000${outcome}\u0000${transport}`;
    let children = this.#children.get(key);
    if (children === undefined) {
      children = {
        calls: this.calls.labels({ tool: name, kb, outcome, transport }),
        duration: this.duration.labels({ tool: name, kb, transport }),
        search: name === SEARCH_TOOL ? this.search.labels({ kb }) : null,
      };
      this.#children.set(key, children);
    }
    const seconds = (performance.now() - startedAt) / 1000;
    children.calls.inc();
    children.duration.observe(seconds);
    children.search?.observe(seconds);
  }
}
