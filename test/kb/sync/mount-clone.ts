/**
 * Mounting a clone prepared by the test (a bad state, a changed origin), with sync on, driven
 * through the real call pipeline; closed by the caller's cleanup list.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { SyncSettings } from "../../../src/kb/core/types.js";
import { type Logger, memoryLogger } from "../../../src/logger.js";
import { LOCAL_ADMIN } from "../../../src/mcp/context.js";
import { surfaceForMount } from "../../../src/mcp/surface-for-mount.js";
import { closeMount, type MountedKb, mountKb } from "../../../src/runtime/mount.js";
import { syncSettings } from "../../support/sync-remote.js";

export type Call = (tool: string, args: Record<string, unknown>) => Promise<CallToolResult>;

export async function mountClone(
  root: string,
  cleanups: (() => Promise<void>)[],
  opts: { logger?: Logger; sync?: Partial<SyncSettings> } = {},
): Promise<{ mount: MountedKb; call: Call }> {
  const logger = opts.logger ?? memoryLogger();
  const mount = await mountKb(
    {
      name: "kb",
      root,
      allowArtifactWrite: false,
      gitAuthor: { name: "B", email: "b@test.invalid" },
      autocommit: true,
      sync: syncSettings(opts.sync),
    },
    { logger },
  );
  cleanups.push(() => closeMount(mount));
  const surface = surfaceForMount(mount, { logger });
  const call: Call = (tool, args) =>
    surface.callTool(tool, args, { principal: LOCAL_ADMIN, transport: "in-memory", requestId: "" });
  return { mount, call };
}

export const writeConcept = (call: Call, id: string) =>
  call("concept_write", { id, frontmatter: { type: "note", title: id }, body: `${id}\n` });
