/** `cartographer reindex --kb PATH`: rebuild the search index of one KB from disk. */
import { basename, resolve } from "node:path";
import type { Command } from "commander";
import { isKbError } from "../../kb/errors.js";
import { acquireKbLock } from "../../kb/kb-lock.js";
import { openKb } from "../../kb/store.js";
import { stderrLogger } from "../../logger.js";
import { ReadWorkerPool } from "../../search/build-reader.js";
import { reindexKb } from "../../search/index.js";
import { normalizeKbName } from "../config/values.js";
import { CliExit, type CliIo, EXIT_USAGE } from "../io.js";
import type { CommandContext } from "../program.js";
import { progressReporter } from "../progress.js";

export function registerReindexCommand(program: Command, { io }: CommandContext): void {
  program
    .command("reindex")
    .description("rebuild a KB's search index (.cartographer/index.db) from its files")
    .requiredOption("--kb <path>", "KB root (the git repository holding data/)")
    .action(async (opts: { kb: string }) => {
      await reindexCommand(io, opts.kb);
    });
}

export async function reindexCommand(io: CliIo, kbPath: string): Promise<void> {
  const root = resolve(io.cwd, kbPath);
  if (!root) throw new CliExit(EXIT_USAGE, "--kb: give the KB root path");
  const name = normalizeKbName(basename(root));
  const store = await openKb({ name, root, allowArtifactWrite: false, autocommit: true });
  // A server holding the KB refuses this at once (its `reindex` tool does the same job).
  const lock = await acquireKbLock({ name, root }, "reindex", stderrLogger(io.stderr)).catch(
    (err: unknown) => {
      if (!isKbError(err, "locked")) throw err;
      throw new CliExit(1, `${err.message} (a server: call its reindex tool instead)`);
    },
  );
  const progress = progressReporter(io.stderr, "reindex");
  const started = Date.now();
  const logger = stderrLogger(io.stderr); // a damaged index is moved aside with a warning
  // Files are read and parsed on a worker thread while this one writes (as a server's build).
  const reader = new ReadWorkerPool();
  const stats = await reindexKb(store, { onProgress: progress.update, logger, reader }).finally(
    async () => {
      await reader.close();
      await lock.release();
    },
  );
  progress.done();
  const seconds = ((Date.now() - started) / 1000).toFixed(2);
  io.stdout.write(`${JSON.stringify({ kb: root, ...stats, seconds: Number(seconds) })}\n`);
}
