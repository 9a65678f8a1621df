/**
 * Which mounts get an endpoint: a KB named `routed` would shadow /mcp/routed (D288) and a
 * repeated name would make /mcp/<name> ambiguous; both are skipped with one warning each.
 */
import type { Logger } from "../logger.js";
import type { MountedKb } from "../mcp/mount.js";

export function servedMounts(mounts: readonly MountedKb[], logger: Logger): MountedKb[] {
  const served: MountedKb[] = [];
  const seen = new Set<string>();
  for (const mount of mounts) {
    if (mount.name === "routed") {
      logger.warn(
        `KB at ${mount.settings.root} is named "routed", which collides with /mcp/routed: skipped (rename it)`,
      );
      continue;
    }
    if (seen.has(mount.name)) {
      logger.warn(
        `KB name "${mount.name}" is used twice (${mount.settings.root}): the second is skipped (give it another name)`,
      );
      continue;
    }
    seen.add(mount.name);
    served.push(mount);
  }
  return served;
}
