/**
 * `initInPlace`: turns an existing, non-empty folder that is not a KB yet into one, as Go's
 * `init` does (docs/decisions.md, "`init` writes the KB layout into a non-empty folder"): the
 * layout files that are missing are written (`data/index.md`, `data/log.md`; an existing file is
 * never overwritten), git is initialised when the folder is not a repository, `.cartographer/`
 * is excluded, and one commit records it. A new repository's first commit holds every file of
 * the folder (Go's `git add -A`: the seeded `skills/`, `mcp/` are the KB's); in an existing
 * repository only the layout files are committed, the rest of its work tree is the user's.
 */
import { mkdir, readdir, rm, rmdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { createFileAtomic } from "../../common/atomic-write.js";
import { KbError } from "../../common/errors.js";
import { serializeDocument } from "../core/frontmatter.js";
import { EMPTY_LOG } from "../core/log.js";
import type { GitIdentity } from "../core/types.js";
import { commitPaths, git } from "../git/git.js";
import { ensureLocalState } from "./local-state.js";

const LAYOUT = ["data/index.md", "data/log.md"] as const;

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The body of a new KB's `data/index.md` (kb create and init alike). */
export const INITIAL_INDEX_BODY = "# Index\n\nKB initialized.\n";

export async function initInPlace(
  target: string,
  title: string,
  identity: GitIdentity,
): Promise<void> {
  const created: string[] = [];
  const hadData = await exists(join(target, "data"));
  const hadGit = await exists(join(target, ".git"));
  const hadLocalState = await exists(join(target, ".cartographer"));
  try {
    await mkdir(join(target, "data"), { recursive: true });
    const index = serializeDocument({ type: "Index", title }, INITIAL_INDEX_BODY);
    if (await createFileAtomic(join(target, LAYOUT[0]), index)) created.push(LAYOUT[0]);
    if (await createFileAtomic(join(target, LAYOUT[1]), EMPTY_LOG)) created.push(LAYOUT[1]);
    if (!hadGit) await git(target, ["init", "-q", "-b", "main"]);
    await ensureLocalState(target);
    const paths = hadGit
      ? [...LAYOUT]
      : (await readdir(target)).filter((e) => e !== ".git" && e !== ".cartographer");
    await commitPaths(target, paths, `init: ${title}`, identity);
  } catch (e) {
    // Undo only what this call created: the user's files stay exactly as they were.
    for (const p of created) await rm(join(target, p), { force: true });
    if (!hadData) await rmdir(join(target, "data")).catch(() => {});
    if (!hadGit) await rm(join(target, ".git"), { recursive: true, force: true });
    if (!hadLocalState) await rm(join(target, ".cartographer"), { recursive: true, force: true });
    if (e instanceof KbError) throw e;
    throw new KbError(
      "internal",
      `writing the KB layout into ${target} failed, nothing was changed: ${(e as Error).message}`,
    );
  }
}
