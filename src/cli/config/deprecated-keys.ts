/**
 * The D288 routing settings (`mcp.mount_mode`, `mcp.tool_prefix_mode`, `kbs[].tool_prefix`, their
 * variables and `--mount-mode`): accepted, ignored, one startup warning each — never fatal.
 */
import type { Settings } from "./pick.js";
import type { FileConfig } from "./schema.js";
import type { ServeFlags } from "./types.js";

export function warnDeprecated(
  file: FileConfig,
  settings: Settings,
  flags: ServeFlags,
  warnings: string[],
): void {
  const ignored =
    "is deprecated and ignored (D288: every HTTP server serves /mcp/routed and tools are never prefixed)";
  if (file.mcp?.mount_mode !== undefined) warnings.push(`config key mcp.mount_mode ${ignored}`);
  if (settings.variable("CARTOGRAPHER_MCP_MOUNT_MODE"))
    warnings.push(`CARTOGRAPHER_MCP_MOUNT_MODE ${ignored}`);
  if (flags.mountMode !== undefined) warnings.push(`--mount-mode ${ignored}`);
  if (file.mcp?.tool_prefix_mode !== undefined)
    warnings.push(`config key mcp.tool_prefix_mode ${ignored}`);
  if (settings.variable("CARTOGRAPHER_MCP_TOOL_PREFIX_MODE"))
    warnings.push(`CARTOGRAPHER_MCP_TOOL_PREFIX_MODE ${ignored}`);
  for (const [i, kb] of (file.kbs ?? []).entries()) {
    if (kb.tool_prefix !== undefined)
      warnings.push(`config key kbs.${i}.tool_prefix (${kb.name ?? kb.path}) ${ignored}`);
  }
}
