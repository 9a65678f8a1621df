/**
 * The store's one commit per write, without `git commit <paths>` (docs/decisions.md "A write
 * commits through objects written in process"). Per write:
 *
 *   git add -A <paths>               the repository's index, exactly as before; beside it, in
 *                                    this process (objects.ts, tree-edit.ts, commit-object.ts):
 *     a blob per path                  read from the working tree, hashed, written, fsynced
 *     the trees along the paths        HEAD's folders on the way, edited; the rest kept by id
 *     the commit                       the author pinned, git's committer, the message
 *   git update-ref HEAD <new> <old>  once the add succeeded; compare-and-swap: fails if HEAD
 *                                    moved
 *
 * Two processes, where git commit builds a temporary index from HEAD's whole tree (and the
 * private index this replaced ran five). Whatever else is staged never reaches the commit (the
 * tree is HEAD's plus these paths); HEAD moved by someone else (a pull, a person's commit) is
 * simply the parent read this time — trees are read by id, nothing is kept in step. Anything
 * git commit would do differently — a hook it runs even with --no-verify, a merge in progress,
 * signing, line-ending conversion, another object format, an identity or message git would
 * rewrite, a file where a folder was, a lost compare-and-swap, a failing step — goes through
 * `git commit <paths>` exactly as before, so the result is always the commit it would make.
 * Objects a fallback leaves behind are unreferenced and go with a later gc; `git gc --auto`
 * runs every GC_EVERY commits, as git commit runs it after each.
 */
import { existsSync } from "node:fs";
import { lstat, readFile, rm } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import type { GitIdentity } from "../core/types.js";
import { commitBody, gitDate, isCleanMessage, isPlainIdentity } from "./commit-object.js";
import {
  headSha,
  identityArgs,
  partialCommit,
  readHeadSha,
  runGit,
  stageablePaths,
  stagePaths,
} from "./git.js";
import { GitObjects, ObjectBatch } from "./objects.js";
import { type RepoFacts, RepoFactsReader } from "./repo-facts.js";
import { type PathEdit, TreeEditor } from "./tree-edit.js";

/** Commits between two `git gc --auto` runs (git commit runs it after every commit). */
const GC_EVERY = 25;
/** A file larger than this is committed by git commit (its blob is not held in memory here). */
const MAX_BLOB_BYTES = 16 * 1024 * 1024;
/** The environment git commit reads these from: set, it is git commit's to honour them. */
const ENV_ONLY_GIT_HONOURS = [
  "GIT_AUTHOR_DATE",
  "GIT_COMMITTER_DATE",
  "GIT_REFLOG_ACTION",
  "GIT_DIR",
  "GIT_WORK_TREE",
];

type Env = Readonly<Record<string, string | undefined>>;

interface Prepared {
  /** The HEAD the commit was built on. */
  head: string;
  tree: string;
  /** The commit object; null when the tree is HEAD's (nothing to commit). */
  sha: string | null;
}

/** Where this committer's objects go, and its tree cache. */
interface ObjectStore {
  dir: string;
  objects: GitObjects;
  trees: TreeEditor;
}

/** Why a write goes through git commit. */
interface Fallback {
  fallback: string;
}

/** How the last commits were made, for tests and the benchmark. */
export interface CommitCounts {
  plumbing: number;
  partial: number;
}

export class PathCommitter {
  readonly #facts: RepoFactsReader | null;
  #store: ObjectStore | null = null;
  /** Our last commit and its tree: the next write's parent, unless HEAD moved. */
  #last: { commit: string; tree: string } | null = null;
  #sinceGc = 0;
  readonly counts: CommitCounts = { plumbing: 0, partial: 0 };
  /** Why the last write went through git commit; null when it did not (tests, diagnostics). */
  lastFallback: string | null = null;

  /** `env`: what git starts from (the server's environment); absent: every commit is partial. */
  constructor(
    private readonly cwd: string,
    private readonly env?: Env,
  ) {
    this.#facts = env ? new RepoFactsReader(cwd, env) : null;
  }

  /**
   * Stages exactly `paths` (additions, modifications, deletions) and commits them alone, even
   * when other changes are staged. Returns the sha, or null when none of the paths changed.
   */
  async commit(paths: string[], message: string, identity: GitIdentity): Promise<string | null> {
    const wanted = await stageablePaths(this.cwd, [...new Set(paths)]);
    if (wanted.length === 0) return null;
    // The repository's index is staged while the commit's objects are written, in parallel;
    // HEAD moves only once both succeeded, so a failed `git add` leaves no commit behind.
    const [staged, prepared] = await Promise.allSettled([
      stagePaths(this.cwd, wanted),
      this.#prepare(wanted, message, identity),
    ]);
    if (staged.status === "rejected") throw staged.reason;
    let outcome: Prepared | Fallback =
      prepared.status === "fulfilled"
        ? prepared.value
        : { fallback: `a step failed: ${(prepared.reason as Error).message}` };
    if (!("fallback" in outcome)) {
      const made = await this.#record(outcome, message, identity);
      if (made !== undefined) {
        this.lastFallback = null;
        return made;
      }
      outcome = { fallback: "HEAD moved before update-ref" };
    }
    this.lastFallback = outcome.fallback;
    this.counts.partial++;
    return partialCommit(this.cwd, wanted, message, identity);
  }

  /** The commit of `paths` on the current HEAD, its objects written; moves no ref. */
  async #prepare(
    paths: readonly string[],
    message: string,
    identity: GitIdentity,
  ): Promise<Prepared | Fallback> {
    const env = this.env;
    if (!this.#facts || !env) return { fallback: "no git environment" };
    if (!isCleanMessage(message)) return { fallback: "a message git commit cleans up" };
    const set = ENV_ONLY_GIT_HONOURS.find((key) => env[key] !== undefined);
    if (set) return { fallback: set };
    const facts = await this.#facts.get();
    if (facts.unusual) return { fallback: facts.unusual };
    const present = facts.watched.find((file) => existsSync(file));
    if (present) return { fallback: relative(this.cwd, present) };
    const committer = {
      name: env.GIT_COMMITTER_NAME ?? facts.committer.name ?? identity.name,
      email: env.GIT_COMMITTER_EMAIL ?? facts.committer.email ?? identity.email,
    };
    if (!isPlainIdentity(identity) || !isPlainIdentity(committer))
      return { fallback: "an identity git rewrites" };
    const head = (await readHeadSha(this.cwd)) ?? (await headSha(this.cwd));
    if (head === null) return { fallback: "no commit yet" };
    const store = await this.#storeFor(facts);
    const batch = new ObjectBatch(store.objects);
    const [tree, edits] = await Promise.all([
      this.#treeOf(head, store.objects),
      this.#edits(paths, batch),
    ]);
    if (typeof edits === "string") return { fallback: edits };
    const made = await store.trees.apply(tree, edits, batch);
    if (made === undefined) return { fallback: "a tree git builds differently" };
    if (made === tree) return { head, tree, sha: null };
    const body = commitBody({
      tree: made,
      parent: head,
      author: identity,
      committer,
      date: gitDate(new Date()),
      message,
    });
    const sha = batch.put("commit", body);
    await batch.written(); // every object stored before HEAD can name the commit
    return { head, tree: made, sha };
  }

  /** Moves HEAD to the prepared commit if it is still where we built on; undefined if not. */
  async #record(
    prepared: Prepared,
    message: string,
    identity: GitIdentity,
  ): Promise<string | null | undefined> {
    const { head, tree, sha } = prepared;
    if (sha === null) return null;
    const subject = message.split("\n", 1)[0] as string;
    // The reflog entry is git commit's: its subject, its identity (identityArgs).
    const moved = await runGit(this.cwd, [
      ...identityArgs(identity),
      "update-ref",
      "-m",
      `commit: ${subject}`,
      "HEAD",
      sha,
      head,
    ]);
    if (moved.code !== 0) return undefined; // HEAD moved meanwhile: git commit builds on it
    this.#last = { commit: sha, tree };
    this.counts.plumbing++;
    if (++this.#sinceGc >= GC_EVERY) {
      this.#sinceGc = 0;
      await runGit(this.cwd, ["gc", "--auto", "--quiet"]).catch(() => undefined);
    }
    return sha;
  }

  /** Each path's new blob (put in `batch`) or null (removed); a string: why git commit must. */
  async #edits(
    paths: readonly string[],
    batch: ObjectBatch,
  ): Promise<Map<string, PathEdit> | string> {
    const folders = new Set(paths.flatMap((p) => ancestors(p)));
    // git add converts what it stores when attributes say so: git commit it is.
    if ([...folders].some((f) => existsSync(join(this.cwd, f, ".gitattributes"))))
      return ".gitattributes";
    const edits = new Map<string, PathEdit>();
    const blobs = await Promise.all(
      paths.map(async (path): Promise<PathEdit | string> => {
        const abs = join(this.cwd, path);
        const stat = await lstat(abs).catch((e: NodeJS.ErrnoException) => {
          if (e.code === "ENOENT" || e.code === "ENOTDIR") return null;
          throw e;
        });
        if (stat === null) return null;
        if (!stat.isFile()) return `${path} is not a regular file`;
        if (stat.size > MAX_BLOB_BYTES) return `${path} is over ${MAX_BLOB_BYTES} bytes`;
        const blob = batch.put("blob", await readFile(abs));
        // git records only the owner's execute bit (core.fileMode, checked in repo-facts.ts).
        return { blob, mode: stat.mode & 0o100 ? "100755" : "100644" };
      }),
    );
    for (const [i, edit] of blobs.entries()) {
      if (typeof edit === "string") return edit;
      edits.set(paths[i] as string, edit);
    }
    return edits;
  }

  /** The tree of commit `sha`: ours when it is our last commit, else read from the object. */
  async #treeOf(sha: string, objects: GitObjects): Promise<string> {
    if (this.#last?.commit === sha) return this.#last.tree;
    const tree = /^tree ([0-9a-f]{40})\n/.exec(
      (await objects.read(sha, "commit")).subarray(0, 46).toString("latin1"),
    )?.[1];
    if (!tree) throw new Error(`commit ${sha} has no tree line`);
    return tree;
  }

  /** The object store for the objects folder the facts name (made again if it moved). */
  async #storeFor(facts: RepoFacts): Promise<ObjectStore> {
    if (this.#store?.dir === facts.objectsDir) return this.#store;
    if (this.#store === null) {
      // An earlier version's private index (docs/decisions.md "A write commits through objects
      // written in process"): nothing reads it any more.
      await rm(facts.legacyIndex, { force: true }).catch(() => undefined);
    }
    const objects = new GitObjects(this.cwd, facts.objectsDir, this.env as Env);
    this.#store = { dir: facts.objectsDir, objects, trees: new TreeEditor(objects) };
    return this.#store;
  }
}

/** The folders `path` lies in, from the repository's root ("") down. */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let dir = dirname(path); dir !== "." && dir !== "/"; dir = dirname(dir)) out.push(dir);
  return ["", ...out.reverse()];
}
