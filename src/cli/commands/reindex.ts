/**
 * `cartographer reindex [--kb NAME|PATH]`: rebuild search indexes. A running server owns its KBs'
 * indexes, so the KBs it holds are rebuilt by its `reindex` tool (reindex-remote.ts, as Go);
 * a KB folder no process holds (its lock is free) is rebuilt here, from disk.
 */
import { existsSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { Command } from "commander";
import { reindexOnServer, runningServer } from "../../client/commands/reindex-remote.js";
import { isKbError } from "../../common/errors.js";
import type { HeldLock as KbLock } from "../../common/process-lock.js";
import { resolveKbName } from "../../kb/core/kb-name.js";
import { acquireKbLock } from "../../kb/locks/kb-lock.js";
import { openKb } from "../../kb/store/store.js";
import { stderrLogger } from "../../logger.js";
import { ReadWorkerPool } from "../../search/build-reader.js";
import { rebuildKbIndex } from "../../search/index.js";
import type { CommandContext } from "../command-context.js";
import { normalizeKbName } from "../config/values.js";
import { CliExit, type CliIo } from "../io.js";
import { progressReporter } from "../progress.js";
import { clientIo } from "./client.js";

interface ReindexFlags {
  kb?: string;
  config?: string;
}

export function registerReindexCommand(program: Command, { io, setExit }: CommandContext): void {
  program
    .command("reindex")
    .description(
      "rebuild search indexes: through the running server for the KBs it holds, else a KB folder locally",
    )
    .option(
      "--kb <name|path>",
      "a KB name on the running server, or a KB folder (default: every KB of the running server)",
    )
    .option("--config <file>", "client yaml naming the server (default ~/.cartographer.yaml)")
    .action(async (opts: ReindexFlags) => {
      setExit(await reindexCommand(io, opts));
    });
}

const isKbFolder = (root: string) => existsSync(join(root, "data", "index.md"));

export async function reindexCommand(io: CliIo, opts: ReindexFlags): Promise<number> {
  const cio = clientIo(io);
  const folder = opts.kb === undefined ? null : resolve(io.cwd, opts.kb);
  if (folder !== null && isKbFolder(folder)) {
    const name = normalizeKbName(basename(folder));
    const lock = await acquireKbLock({ name, root: folder }, "reindex", stderrLogger(io.stderr))
      .then((l): KbLock | { held: string } => l)
      .catch((err: unknown) => {
        if (!isKbError(err, "locked")) throw err;
        return { held: err.message };
      });
    if (!("held" in lock)) return reindexLocally(io, folder, name, lock);
    // Held by another process: the running server, when it mounts a KB of that name.
    const found = await runningServer(cio, opts);
    const served = found.server ? resolveKbName(name, found.server.kbs) : null;
    if (found.server === null || served === null)
      throw new CliExit(
        1,
        `${lock.held}; no running server mounts it (${found.server ? `the server at ${found.server.base} has no KB '${name}'` : `${found.base}: ${found.why}`}): stop the process holding it, or point --config at its server`,
      );
    return reindexOnServer(cio, found.server, [served]);
  }
  const found = await runningServer(cio, opts);
  if (found.server === null) {
    const what =
      opts.kb === undefined ? "" : ` and '${opts.kb}' is not a KB folder (no data/index.md)`;
    throw new CliExit(
      1,
      `no running server answers at ${found.base} (${found.why})${what}: start the server, set server_url in the client yaml, or pass --kb PATH to rebuild a KB folder here`,
    );
  }
  const server = found.server;
  let names = server.kbs;
  if (opts.kb !== undefined) {
    const served = resolveKbName(opts.kb, server.kbs);
    if (served === null)
      throw new CliExit(
        1,
        `the server at ${server.base} has no KB '${opts.kb}'; mounted: ${server.kbs.join(", ") || "(none)"}; or pass --kb PATH to rebuild a KB folder here`,
      );
    names = [served];
  }
  return reindexOnServer(cio, server, names);
}

async function reindexLocally(
  io: CliIo,
  root: string,
  name: string,
  lock: KbLock,
): Promise<number> {
  const store = await openKb({ name, root, allowArtifactWrite: false, autocommit: true }).catch(
    async (err: unknown) => {
      await lock.release();
      throw err;
    },
  );
  const progress = progressReporter(io.stderr, "reindex");
  const started = Date.now();
  const logger = stderrLogger(io.stderr); // a damaged index is moved aside with a warning
  // Files are read and parsed on a worker thread while this one writes (as a server's build).
  const reader = new ReadWorkerPool();
  const stats = await rebuildKbIndex(store, {
    onProgress: progress.update,
    logger,
    reader,
  }).finally(async () => {
    await reader.close();
    await lock.release();
  });
  progress.done();
  const seconds = ((Date.now() - started) / 1000).toFixed(2);
  io.stdout.write(`${JSON.stringify({ kb: root, ...stats, seconds: Number(seconds) })}\n`);
  return 0;
}
