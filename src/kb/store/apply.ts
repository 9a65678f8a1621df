/**
 * Atomic application of a plan's file changes: every temp file is written and fsynced in the
 * target's own directory before the first rename; if a later step fails, the files already
 * replaced get their previous bytes back (design.md P2). The temp-file scheme, fsync and directory
 * fsync are atomic-write.ts's (the one owner); this module adds the two-phase whole-set commit.
 */
import { mkdir, readFile, rename, rmdir, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { syncDir, tempPathFor, writeFileAtomic, writeSynced } from "../../common/atomic-write.js";
import { KbError } from "../../common/errors.js";
import { resolveInside } from "../../common/paths.js";
import type { FileChange } from "../core/api.js";
import { realPathInside } from "./fsutil.js";

interface Step {
  abs: string;
  temp: string | null;
  previous: Buffer | null;
}

async function readOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // A directory in the way is not "previous content": the rename below fails and rolls back.
    if (code === "ENOENT" || code === "EISDIR") return null;
    throw e;
  }
}

/** Removes directories emptied by deletions, up to (not including) the KB root. */
async function pruneEmptyDirs(root: string, dirs: Set<string>): Promise<void> {
  const sorted = [...dirs].sort((a, b) => b.length - a.length);
  for (let dir of sorted) {
    while (dir.startsWith(root) && dir !== root && dirname(dir) !== dir) {
      try {
        await rmdir(dir);
      } catch {
        break; // Not empty (or gone): stop climbing.
      }
      dir = dirname(dir);
    }
  }
}

async function rollback(done: Step[]): Promise<void> {
  for (const step of [...done].reverse()) {
    try {
      if (step.previous === null) await unlink(step.abs);
      else {
        await mkdir(dirname(step.abs), { recursive: true });
        await writeFileAtomic(step.abs, step.previous);
      }
    } catch {
      // Keep restoring the others; the original error is what gets reported.
    }
  }
}

/** Applies `changes` under `root` atomically (per file) with rollback of the whole set. */
export async function applyChanges(root: string, changes: FileChange[]): Promise<void> {
  // Before any byte: no change may land outside the KB through a symlinked folder.
  for (const change of changes) await realPathInside(root, dirname(change.path));
  const steps: Step[] = [];
  try {
    for (const change of changes) {
      const abs = resolveInside(root, change.path);
      const previous = await readOrNull(abs);
      let temp: string | null = null;
      if (change.content !== null) {
        await mkdir(dirname(abs), { recursive: true });
        temp = tempPathFor(abs);
        await writeSynced(temp, change.content);
      }
      steps.push({ abs, temp, previous });
    }
  } catch (e) {
    await Promise.all(steps.map((s) => (s.temp ? unlink(s.temp).catch(() => {}) : undefined)));
    throw new KbError(
      "internal",
      `writing temp files failed, nothing was changed: ${(e as Error).message}`,
    );
  }
  const done: Step[] = [];
  const emptied = new Set<string>();
  try {
    for (const step of steps) {
      if (step.temp) await rename(step.temp, step.abs);
      else if (step.previous !== null) {
        await unlink(step.abs);
        emptied.add(dirname(step.abs));
      }
      done.push(step);
    }
  } catch (e) {
    await rollback(done);
    await Promise.all(
      steps
        .filter((s) => !done.includes(s) && s.temp)
        .map((s) => unlink(s.temp as string).catch(() => {})),
    );
    throw new KbError(
      "internal",
      `applying the write failed and was rolled back: ${(e as Error).message}`,
    );
  }
  await Promise.all([...new Set(steps.map((s) => dirname(s.abs)))].map(syncDir));
  await pruneEmptyDirs(root, emptied);
}
