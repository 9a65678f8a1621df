/**
 * The store's one commit per write, without `git commit <paths>` (docs/decisions.md "A write
 * commits through plumbing on a private index"). A partial commit makes git build a temporary
 * index from HEAD's whole tree and write two index files: at 10,000 concepts that was most of a
 * write. Instead the server keeps its own index file in the git dir, equal to the tree of the
 * commit it last made, and per write:
 *
 *   git add -A <paths>                          the repository's index, exactly as before,
 *                                               in parallel with the next three
 *   GIT_INDEX_FILE=own git update-index <paths> the private index: only those paths
 *   GIT_INDEX_FILE=own git write-tree           unchanged subtrees come from its cache-tree
 *   git commit-tree <tree> -p <HEAD we know>    explicit author and committer, as before
 *   git update-ref HEAD <new> <HEAD we know>    once the add succeeded; compare-and-swap:
 *                                               fails if HEAD moved
 *
 * Whatever else is staged in the repository's index never reaches the commit (the private
 * index has HEAD's tree plus these paths only). HEAD moved since our last commit (a pull, a
 * person's commit): the private index first takes the files that differ between the two
 * commits (diff-tree), or is read afresh from HEAD. Anything unusual — an update-ref
 * that lost the race, a failing plumbing step, a commit hook to run, a message git would
 * clean up — goes through the partial commit exactly as before, so the result is always the
 * commit `git commit <paths>` would make. Objects a lost race leaves behind are unreferenced
 * and go with the next gc; `git gc --auto` runs every GC_EVERY commits, as git commit runs it
 * after each.
 */
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { inflateSync } from "node:zlib";
import type { GitIdentity } from "../core/types.js";
import {
  git,
  headSha,
  identityArgs,
  partialCommit,
  readHeadSha,
  runGit,
  stageablePaths,
  stagePaths,
} from "./git.js";

/** The private index, in the git dir (never tracked, never read by a person's git). */
export const OWN_INDEX = "cartographer-index";
/** Hooks `git commit --no-verify` still runs (core.hooksPath honoured through --git-path). */
const HOOKS = ["prepare-commit-msg", "post-commit"];
/** Files a catch-up applies at most; beyond, reading the whole tree in is as cheap. */
const MAX_CATCH_UP = 2_000;
/** Commits between two `git gc --auto` runs (git commit runs it after every commit). */
const GC_EVERY = 25;

interface Known {
  /** The commit whose tree the private index holds. */
  head: string;
  tree: string;
}

interface Prepared {
  known: Known;
  tree: string;
  /** The commit object; null when the tree is HEAD's (nothing to commit). */
  sha: string | null;
}

interface Setup {
  gitDir: string;
  indexFile: string;
  /** The hooks git commit runs even with --no-verify: either present, git commit it is. */
  hooks: string[];
}

/** How the last commits were made, for tests and the benchmark. */
export interface CommitCounts {
  plumbing: number;
  partial: number;
}

export class PathCommitter {
  #known: Known | null = null;
  #setup: Promise<Setup> | null = null;
  #sinceGc = 0;
  readonly counts: CommitCounts = { plumbing: 0, partial: 0 };

  /** `env`: what git starts from (the server's environment); absent: every commit is partial. */
  constructor(
    private readonly cwd: string,
    private readonly env?: Readonly<Record<string, string | undefined>>,
  ) {}

  /**
   * Stages exactly `paths` (additions, modifications, deletions) and commits them alone, even
   * when other changes are staged. Returns the sha, or null when none of the paths changed.
   */
  async commit(paths: string[], message: string, identity: GitIdentity): Promise<string | null> {
    const wanted = await stageablePaths(this.cwd, [...new Set(paths)]);
    if (wanted.length === 0) return null;
    // The repository's index is staged while the private index builds the commit's objects, in
    // parallel (separate index files); HEAD moves only once both succeeded, so a failed
    // `git add` leaves no commit behind, as before.
    const [staged, prepared] = await Promise.allSettled([
      stagePaths(this.cwd, wanted),
      this.#prepare(wanted, message, identity),
    ]);
    if (staged.status === "rejected") throw staged.reason;
    const made =
      prepared.status === "fulfilled" ? await this.#record(prepared.value, message) : undefined;
    if (made !== undefined) return made;
    this.#known = null;
    this.counts.partial++;
    return partialCommit(this.cwd, wanted, message, identity);
  }

  /**
   * The commit object of `paths` on the HEAD we know, built in the private index (null: none of
   * the paths differs from HEAD); undefined: take the partial commit instead. Moves no ref.
   */
  async #prepare(
    paths: readonly string[],
    message: string,
    identity: GitIdentity,
  ): Promise<Prepared | undefined> {
    const base = this.env;
    if (base === undefined || !isCleanMessage(message)) return undefined;
    this.#setup ??= this.#locate();
    const setup = await this.#setup;
    if (setup.hooks.some((hook) => existsSync(hook))) return undefined; // git commit runs it
    const head = (await readHeadSha(this.cwd)) ?? (await headSha(this.cwd));
    if (head === null) return undefined; // no commit yet
    const env = { ...base, GIT_INDEX_FILE: setup.indexFile };
    let known = this.#known;
    // From here the private index differs from what #known says until the commit is recorded.
    this.#known = null;
    if (known?.head !== head) {
      known =
        (known && (await this.#catchUp(known, head, env))) ?? (await this.#rebuild(head, env));
    }
    await git(
      this.cwd,
      ["update-index", "--add", "--remove", "-z", "--stdin"],
      `${paths.join("\0")}\0`,
      env,
    );
    const tree = (await git(this.cwd, ["write-tree"], undefined, env)).trim();
    if (tree === known.tree) return { known, tree, sha: null };
    const sha = (
      await git(
        this.cwd,
        [...identityArgs(identity), "commit-tree", tree, "-p", known.head, "-m", message],
        undefined,
        // The author as `--author` pins it; the committer stays git's (user.* above, or the
        // server's GIT_COMMITTER_* environment), as with git commit.
        { ...base, GIT_AUTHOR_NAME: identity.name, GIT_AUTHOR_EMAIL: identity.email },
      )
    ).trim();
    return { known, tree, sha };
  }

  /** Moves HEAD to the prepared commit if it is still where we built on; undefined if not. */
  async #record(
    prepared: Prepared | undefined,
    message: string,
  ): Promise<string | null | undefined> {
    if (prepared === undefined) return undefined;
    const { known, tree, sha } = prepared;
    if (sha === null) {
      this.#known = known; // the private index holds HEAD's tree again
      return null;
    }
    const subject = message.split("\n", 1)[0] as string;
    const moved = await runGit(this.cwd, [
      "update-ref",
      "-m",
      `commit: ${subject}`,
      "HEAD",
      sha,
      known.head,
    ]);
    if (moved.code !== 0) return undefined; // HEAD moved meanwhile: git commit builds on it
    this.#known = { head: sha, tree };
    this.counts.plumbing++;
    if (++this.#sinceGc >= GC_EVERY) {
      this.#sinceGc = 0;
      await runGit(this.cwd, ["gc", "--auto", "--quiet"]).catch(() => undefined);
    }
    return sha;
  }

  /** The private index read afresh from `head` (a read-tree of the whole tree: ~55 ms at 10k). */
  async #rebuild(head: string, env: Readonly<Record<string, string | undefined>>): Promise<Known> {
    const setup = await (this.#setup as Promise<Setup>);
    // Only this process uses the file (the KB lock): a lock left by a killed run is stale.
    await rm(`${setup.indexFile}.lock`, { force: true });
    await git(this.cwd, ["read-tree", head], undefined, env);
    return { head, tree: await this.#treeOf(head) };
  }

  /** The tree of commit `sha`: read from its loose object when it is one, else asked of git. */
  async #treeOf(sha: string): Promise<string> {
    const setup = await (this.#setup as Promise<Setup>);
    try {
      const object = inflateSync(
        await readFile(join(setup.gitDir, "objects", sha.slice(0, 2), sha.slice(2))),
      );
      const tree = /^commit \d+\0tree ([0-9a-f]{40})\n/.exec(
        object.subarray(0, 80).toString("latin1"),
      )?.[1];
      if (tree) return tree;
    } catch {
      // packed, or not readable: git knows
    }
    return (await git(this.cwd, ["rev-parse", `${sha}^{tree}`])).trim();
  }

  /**
   * The private index moved from `known.head`'s tree to `head`'s by the files that differ
   * between the two commits (someone else committed, a pull moved HEAD): a diff-tree and one
   * update-index instead of reading the whole tree in. Null when the diff is large or fails.
   */
  async #catchUp(
    known: Known,
    head: string,
    env: Readonly<Record<string, string | undefined>>,
  ): Promise<Known | null> {
    const diff = await runGit(this.cwd, [
      "diff-tree",
      "-r",
      "-z",
      "--no-renames",
      "--raw",
      known.head,
      head,
    ]);
    if (diff.code !== 0) return null;
    const fields = diff.stdout.split("\0");
    const entries: string[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      // ":<old mode> <new mode> <old sha> <new sha> <status>", then the path.
      const [, mode, , sha, status] = (fields[i] as string).slice(1).split(" ");
      const path = fields[i + 1] as string;
      entries.push(status === "D" ? `0 ${"0".repeat(40)}\t${path}` : `${mode} ${sha}\t${path}`);
    }
    if (entries.length > MAX_CATCH_UP) return null;
    const [tree] = await Promise.all([
      this.#treeOf(head),
      entries.length > 0
        ? git(this.cwd, ["update-index", "-z", "--index-info"], `${entries.join("\0")}\0`, env)
        : null,
    ]);
    return { head, tree };
  }

  async #locate(): Promise<Setup> {
    const out = await git(this.cwd, [
      "rev-parse",
      "--absolute-git-dir",
      ...HOOKS.flatMap((hook) => ["--git-path", `hooks/${hook}`]),
    ]);
    const [dir, ...hooks] = out.trim().split("\n") as [string, ...string[]];
    return {
      gitDir: dir,
      indexFile: join(dir, OWN_INDEX),
      hooks: hooks.map((hook) => (isAbsolute(hook) ? hook : join(this.cwd, hook))),
    };
  }
}

/**
 * A message git commit keeps byte for byte (its default cleanup of a `-m` message strips
 * trailing blanks, leading and trailing empty lines and runs of empty lines); any other one
 * goes through git commit itself.
 */
function isCleanMessage(message: string): boolean {
  if (message === "" || message.includes("\r")) return false;
  const lines = message.split("\n");
  if (lines[0] === "" || lines[lines.length - 1] === "") return false;
  return lines.every(
    (line, i) => !/[ \t\v\f]$/.test(line) && !(line === "" && lines[i - 1] === ""),
  );
}
