/**
 * The per-KB lock across processes (docs/decisions.md "One writing process per KB"): whoever writes
 * a KB's files, git index or search index holds `<kb>/.cartographer/kb.lock` — a serving process
 * for its whole life, the `reindex` command while it runs. A second process is refused with the
 * holder named (docs/operations.md "Locks"). In-process writers are serialized by AsyncLock
 * (lock.ts).
 */
import { join } from "node:path";
import { acquireProcessLock, type HeldLock } from "../../common/process-lock.js";
import type { Logger } from "../../logger.js";

/** The lock file, relative to the KB root. */
export const KB_LOCK_FILE = ".cartographer/kb.lock";

/**
 * Takes the lock of the KB `name` at `root` for `purpose` (`serve`, `reindex`), or throws
 * KbError `locked` naming the holder; messages name the KB, never its absolute path.
 */
export function acquireKbLock(
  kb: { name: string; root: string },
  purpose: string,
  logger: Logger,
): Promise<HeldLock> {
  return acquireProcessLock(join(kb.root, KB_LOCK_FILE), {
    label: `KB '${kb.name}'`,
    purpose,
    displayPath: `${KB_LOCK_FILE} in KB '${kb.name}'`,
    logger,
  });
}
