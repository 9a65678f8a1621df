/** A mounted KB's surface with the registry's tools for its settings. */
import type { AuditSink } from "../audit/types.js";
import type { Logger } from "../logger.js";
import { toolsFor } from "../tools/registry.js";
import { KbSurface } from "./kb-surface.js";
import type { MountedKb } from "./mount.js";

export function surfaceForMount(
  mount: MountedKb,
  opts: { audit?: AuditSink | null; logger: Logger },
): KbSurface {
  return new KbSurface({
    runtime: mount.runtime,
    specs: toolsFor(mount.settings),
    audit: opts.audit ?? null,
    logger: opts.logger,
  });
}
