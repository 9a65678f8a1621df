/**
 * A commit as one viewer may see it (docs/decisions.md "Console: a commit as the viewer sees
 * it"): only the concept files the viewer can see, the subject retold without hidden ids, and
 * nothing at all when no visible concept file is left. Pure; the ids' visibility is resolved by
 * the caller (ViewScope) before.
 */
import { pathToId } from "../../kb/core/ids.js";
import { visibleSubject } from "../../kb/git/history.js";
import { MAX_COMMIT_FILES, type RawCommit } from "./git-reads.js";

/** What may be seen of which ids: the whole KB, or exactly the ids in a resolved set. */
export interface ViewScope {
  /** A whole-KB reader sees every path and every subject as written. */
  readonly all: boolean;
  /** The ids among `ids` the viewer may see (concept ids; other paths are whole-KB only). */
  visibleIds(ids: readonly string[]): Promise<ReadonlySet<string>>;
}

export interface ViewedFile {
  status: string;
  /** One path, or old and new of a rename/copy whose both sides are visible. */
  paths: string[];
}

export interface ViewedCommit {
  sha: string;
  time: string;
  author: string;
  subject: string;
  /** True when the subject was retold (the commit touched something hidden). */
  retold: boolean;
  files: ViewedFile[];
  /** Every path of `files` (the pathspec of this viewer's diff). */
  paths: string[];
  merge: boolean;
  /** The commit touched more than MAX_COMMIT_FILES files: only the first ones were judged. */
  filesCut: boolean;
}

/**
 * Files of one commit judged and shown at most (git-reads.ts): the rest are treated as hidden,
 * for everyone alike (fail closed), and the page says the list is cut.
 */
export { MAX_COMMIT_FILES };

/** Shown instead of a subject that is not `<tool>: …` and touched something hidden. */
export const WITHHELD_SUBJECT = "(subject withheld)";

/** The concept ids a commit's files name (both sides of renames), for resolving visibility. */
export function idsOfCommit(c: RawCommit): string[] {
  const ids = new Set<string>();
  for (const f of c.files.slice(0, MAX_COMMIT_FILES))
    for (const p of f.paths) {
      const id = pathToId(p);
      if (id !== null) ids.add(id);
    }
  return [...ids];
}

/**
 * `c` as a viewer seeing `visible` may see it, or null when it touched no visible concept file.
 * A rename with one hidden side is shown as the visible side's add or delete.
 */
export function viewCommit(
  whole: RawCommit,
  all: boolean,
  visible: ReadonlySet<string>,
): ViewedCommit | null {
  const merge = whole.parents.length > 1;
  const filesCut = whole.files.length > MAX_COMMIT_FILES;
  const c = filesCut ? { ...whole, files: whole.files.slice(0, MAX_COMMIT_FILES) } : whole;
  if (all) {
    const files = c.files.map((f) => ({ status: f.status, paths: [...f.paths] }));
    return {
      ...base(c, merge, filesCut),
      subject: c.subject,
      retold: false,
      files,
      paths: pathsOf(files),
    };
  }
  const seen = (p: string | undefined): boolean => {
    const id = p === undefined ? null : pathToId(p);
    return id !== null && visible.has(id);
  };
  const files: ViewedFile[] = [];
  let hidden = false;
  for (const f of c.files) {
    const [first, second] = f.paths;
    if (second === undefined) {
      if (seen(first) && first !== undefined) files.push({ status: f.status, paths: [first] });
      else hidden = true;
      continue;
    }
    const a = seen(first);
    const b = seen(second);
    if (a && b) files.push({ status: f.status, paths: [...f.paths] });
    else if (b) files.push({ status: "A", paths: [second] });
    else if (a && f.status === "R" && first !== undefined)
      files.push({ status: "D", paths: [first] });
    if (!a || !b) hidden = true;
  }
  if (files.length === 0) return null;
  const ids = idsOfCommit(c);
  const otherPaths = filesCut || c.files.some((f) => f.paths.some((p) => pathToId(p) === null));
  const retold = hidden || otherPaths;
  const subject = retold
    ? (visibleSubject({ subject: c.subject, ids, otherPaths }, (id) => visible.has(id)) ??
      WITHHELD_SUBJECT)
    : c.subject;
  return {
    ...base(c, merge, filesCut),
    subject: capped(subject),
    retold,
    files,
    paths: pathsOf(files),
  };
}

function base(c: RawCommit, merge: boolean, filesCut: boolean) {
  return { sha: c.sha, time: c.time, author: c.author, merge, filesCut };
}

function pathsOf(files: readonly ViewedFile[]): string[] {
  return [...new Set(files.flatMap((f) => f.paths))];
}

/** A retold subject lists every visible id: a long list is cut (the files are listed anyway). */
const MAX_SUBJECT = 300;

function capped(subject: string): string {
  return subject.length <= MAX_SUBJECT ? subject : `${subject.slice(0, MAX_SUBJECT)}…`;
}
