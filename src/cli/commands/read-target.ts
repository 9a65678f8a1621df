/**
 * Where `cartographer search|read|list|log` ask: the running server when it holds the KB (its
 * index is the live one; the same token as `connect`), else a KB folder no process holds,
 * opened here (docs/decisions.md "Terminal commands").
 */
import { existsSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { runningServer } from "../../client/commands/reindex-remote.js";
import { ClientError, ToolError } from "../../client/errors.js";
import { openMcpSession } from "../../client/mcp-session.js";
import { resolveKbName } from "../../kb/core/kb-name.js";
import { kbFoldersIn } from "../config/kb-specs.js";
import { normalizeKbName } from "../config/values.js";
import { CliExit, type CliIo, EXIT_USAGE } from "../io.js";
import { clientIo } from "./client.js";
import { dataDirOf } from "./kb.js";
import { type ReadTarget, toolFailure } from "./read-answer.js";
import { type LocalFolder, openLocalKb } from "./read-local.js";

export interface TargetFlags {
  kb?: string;
  config?: string;
  data?: string;
}

const isKbFolder = (root: string) => existsSync(join(root, "data", "index.md"));

export async function openReadTarget(io: CliIo, flags: TargetFlags): Promise<ReadTarget> {
  const folder = flags.kb === undefined ? null : resolve(io.cwd, flags.kb);
  if (folder !== null && isKbFolder(folder)) {
    const local = await openLocalKb(io, { name: normalizeKbName(basename(folder)), root: folder });
    if (local !== null) return local;
    return serverTarget(io, flags, normalizeKbName(basename(folder)), folder);
  }
  const found = await runningServer(clientIo(io), flags);
  if (found.server !== null) return serverTarget(io, flags, flags.kb);
  const chosen = localChoice(
    io,
    flags,
    `no running server answers at ${found.base} (${found.why})`,
  );
  const local = await openLocalKb(io, chosen);
  if (local !== null) return local;
  throw new CliExit(
    1,
    `${chosen.root} is held by another process, and no running server answers at ${found.base} (${found.why}): set server_url in the client yaml (--config) to the server that holds it`,
  );
}

/** The KB of the running server: `name` (a mounted name), else its only KB. */
async function serverTarget(
  io: CliIo,
  flags: TargetFlags,
  name: string | undefined,
  heldFolder?: string,
): Promise<ReadTarget> {
  const found = await runningServer(clientIo(io), flags);
  if (found.server === null)
    throw new CliExit(
      1,
      `${heldFolder} is held by another process, and no running server answers at ${found.base} (${found.why}): stop that process, or set server_url in the client yaml (--config) to its server`,
    );
  const { base, kbs, headers } = found.server;
  const kb = pickKb(name, kbs, `the server at ${base}`);
  const where = `${kb} on ${base}`;
  let session: Awaited<ReturnType<typeof openMcpSession>>;
  try {
    session = await openMcpSession(`${base}/mcp/routed?kbs=${encodeURIComponent(kb)}`, headers);
  } catch (err) {
    throw asExit(err, where);
  }
  return {
    where,
    async call(tool, args) {
      try {
        return await session.callTool(tool, args);
      } catch (err) {
        throw asExit(err, where);
      }
    },
    close: () => session.close(),
  };
}

/** A tool's error answer or a failed exchange: exit 1, naming the tool and the KB. */
function asExit(err: unknown, where: string): unknown {
  if (err instanceof ToolError) return toolFailure(err.tool, where, err.text);
  if (err instanceof ClientError) return new CliExit(1, `${where}: ${err.message}`);
  return err;
}

/** `name` among `kbs` (exact or normalized); absent: the only one. Else a usage error naming them. */
export function pickKb(name: string | undefined, kbs: readonly string[], holder: string): string {
  const listed = kbs.join(", ") || "(none)";
  if (name === undefined) {
    if (kbs.length === 1) return kbs[0] as string;
    throw new CliExit(
      EXIT_USAGE,
      kbs.length === 0
        ? `${holder} has no KB: create one (cartographer kb create NAME) or pass --kb PATH`
        : `${holder} has ${kbs.length} KBs (${listed}): choose one with --kb NAME`,
    );
  }
  const resolved = resolveKbName(name, kbs);
  if (resolved !== null) return resolved;
  throw new CliExit(EXIT_USAGE, `${holder} has no KB '${name}'; KBs: ${listed}; or pass --kb PATH`);
}

/** With no server: the KB folder under the data directory that --kb names, or its only one. */
function localChoice(io: CliIo, flags: TargetFlags, noServer: string): LocalFolder {
  const data = dataDirOf(io, flags.data);
  const folders = existsSync(data) ? kbFoldersIn(data) : [];
  if (folders.length === 0)
    throw new CliExit(
      1,
      `${noServer}, and ${data} holds no KB folder: start the server, pass --kb PATH (a KB folder) or --data DIR`,
    );
  const byName = new Map(folders.map((root) => [normalizeKbName(basename(root)), root]));
  const name = pickKb(flags.kb, [...byName.keys()], `${noServer}; the data directory ${data}`);
  return { name, root: byName.get(name) as string };
}
