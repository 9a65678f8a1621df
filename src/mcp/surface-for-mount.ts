/** A mounted KB's surface with the registry's tools for its settings (or the given ones). */
import type { AuditSink } from "../audit/types.js";
import type { KbSettings } from "../kb/core/types.js";
import type { Logger } from "../logger.js";
import type { CallMetrics } from "../metrics/call-metrics.js";
import type { MountedKb } from "../runtime/mount.js";
import { toolsFor } from "../tools/registry.js";
import type { ToolSpec } from "../tools/spec.js";
import { KbSurface } from "./kb-surface.js";

export function surfaceForMount(
  mount: MountedKb,
  opts: {
    audit?: AuditSink | null;
    logger: Logger;
    /** The tools a KB registers; default the registry's `toolsFor`. */
    toolsFor?: (settings: KbSettings) => readonly ToolSpec[];
    metrics?: CallMetrics;
  },
): KbSurface {
  return new KbSurface({
    runtime: mount.runtime,
    specs: (opts.toolsFor ?? toolsFor)(mount.settings),
    audit: opts.audit ?? null,
    logger: opts.logger,
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
  });
}
