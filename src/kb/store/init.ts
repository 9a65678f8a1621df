/**
 * `initKb`: a new KB (data/index.md, data/log.md, `git init -b main`, exclude, first commit),
 * built in a hidden sibling folder and renamed into place, so a failure leaves nothing behind.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, rename, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { KbError } from "../../common/errors.js";
import { serializeDocument } from "../core/frontmatter.js";
import { EMPTY_LOG } from "../core/log.js";
import type { GitIdentity } from "../core/types.js";
import { commitPaths, configuredIdentity, FALLBACK_IDENTITY, git } from "../git/git.js";
import { INITIAL_INDEX_BODY, initInPlace } from "./init-in-place.js";
import { ensureLocalState } from "./local-state.js";

export interface InitKbOptions {
  title?: string;
  /** Author and committer of the initial commit (default cartographer <cartographer@localhost>). */
  identity?: GitIdentity;
  /** Alias of `identity` (the KbSettings spelling). */
  gitAuthor?: GitIdentity;
  /**
   * A non-empty folder that is not a KB yet gets the layout written into it (init-in-place.ts;
   * `serve --init`, as Go) instead of `already_exists` (`kb create`).
   */
  inPlace?: boolean;
}

async function entriesOf(dir: string): Promise<string[] | null> {
  try {
    return await readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new KbError(
      "invalid_argument",
      `${dir} is not a readable folder: ${(e as Error).message}`,
    );
  }
}

/** Removes `dir` and its parents while empty, stopping after `top`. */
async function removeEmptyUpTo(dir: string, top: string): Promise<void> {
  for (let d = dir; d.startsWith(top); d = dirname(d)) {
    try {
      await rmdir(d);
    } catch {
      return; // Not empty (someone else wrote there): keep it.
    }
    if (d === top) return;
  }
}

/**
 * Creates a KB at `root`. An existing non-empty folder is refused (`already_exists`) unless
 * `inPlace` is set; one that is a KB already (`data/index.md`) is refused either way.
 */
export async function initKb(root: string, opts: InitKbOptions = {}): Promise<void> {
  const target = resolve(root);
  const existing = await entriesOf(target);
  const title = opts.title?.trim() || basename(target);
  // Same order as every later commit: given identity → git's own (global) → cartographer.
  const identity =
    opts.identity ?? opts.gitAuthor ?? (await configuredIdentity(tmpdir())) ?? FALLBACK_IDENTITY;
  if (existing !== null && existing.length > 0) {
    if (opts.inPlace && !existsSync(join(target, "data", "index.md")))
      return initInPlace(target, title, identity);
    throw new KbError(
      "already_exists",
      `${target} exists and is not empty: pick a new folder for the KB`,
    );
  }
  // The first folder this call creates (if any): removed again on failure, so a KB created
  // under a new data directory leaves no empty data directory behind.
  const createdParent = await mkdir(dirname(target), { recursive: true });
  const work = join(
    dirname(target),
    `.${basename(target)}.cartographer-init-${randomBytes(4).toString("hex")}`,
  );
  try {
    await mkdir(join(work, "data"), { recursive: true });
    await writeFile(
      join(work, "data", "index.md"),
      serializeDocument({ type: "Index", title }, INITIAL_INDEX_BODY),
    );
    await writeFile(join(work, "data", "log.md"), EMPTY_LOG);
    await git(work, ["init", "-q", "-b", "main"]);
    await ensureLocalState(work);
    const sha = await commitPaths(
      work,
      ["data/index.md", "data/log.md"],
      `init: ${title}`,
      identity,
    );
    if (!sha) throw new KbError("git_failed", "the initial commit was not created");
    if (existing !== null) await rmdir(target);
    await rename(work, target);
  } catch (e) {
    await rm(work, { recursive: true, force: true });
    if (createdParent) await removeEmptyUpTo(dirname(target), createdParent);
    if (e instanceof KbError) throw e;
    throw new KbError(
      "internal",
      `creating the KB at ${target} failed, nothing was created: ${(e as Error).message}`,
    );
  }
}
