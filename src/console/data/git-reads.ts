/**
 * The console's git reads, each bounded: a count of commits, a byte cap and a time limit on
 * every command (docs/decisions.md "Console: bounded git reads"). Arguments are arrays handed to
 * the project's one git runner (no shell); every sha is validated before it reaches git.
 */
import { KbError } from "../../common/errors.js";
import { GIT_TIMED_OUT, runGit } from "../../kb/git/git.js";

/** Every console git command is killed after this long. */
export const GIT_READ_TIMEOUT_MS = 5_000;

/** One commit as the log names it: newest first, files relative to the KB root. */
export interface RawCommit {
  sha: string;
  parents: string[];
  time: string;
  author: string;
  subject: string;
  /** Status letter (A/M/D/R/C/T) and paths (old, new for a rename). */
  files: Array<{ status: string; paths: string[] }>;
}

const RS = "\x1e";
const US = "\x1f";
const FORMAT = `--format=${RS}%H${US}%P${US}%aI${US}%an${US}%s`;

/** A sha as a URL may carry it: 7–40 lowercase hex. */
export function isShaLike(text: string): boolean {
  return /^[0-9a-f]{7,40}$/.test(text);
}

/** Parses `git log FORMAT --name-status` output (pure). */
export function parseCommits(out: string): RawCommit[] {
  const commits: RawCommit[] = [];
  for (const chunk of out.split(RS)) {
    if (chunk.trim() === "") continue;
    const [header = "", ...lines] = chunk.split("\n");
    const [sha = "", parents = "", time = "", author = "", subject = ""] = header.split(US);
    const files = lines
      .filter((l) => l.includes("\t"))
      .map((l) => {
        const [status = "", ...paths] = l.split("\t");
        return { status: status.charAt(0), paths };
      });
    commits.push({
      sha,
      parents: parents.split(" ").filter(Boolean),
      time,
      author,
      subject,
      files,
    });
  }
  return commits;
}

export interface LogWindow {
  /** Start here (a full sha); default HEAD. */
  from?: string;
  /** Commits to skip from `from` (a cursor resumes after the last one it read). */
  skip: number;
  /** At most this many commits. */
  count: number;
  /** Only commits touching these KB-root-relative pathspecs (literal). */
  paths?: readonly string[];
  /** Only subjects starting `<tool>: `. */
  tool?: string;
  since?: Date;
  until?: Date;
}

/**
 * One page of raw history (newest first); an empty list for a KB without commits. git's date
 * parser saturates far dates: callers re-check `since`/`until` on the commit times. The commits
 * come from one cheap `git log` (no diff); their files from `commitFiles` (cached).
 */
export async function readLog(root: string, w: LogWindow): Promise<RawCommit[]> {
  const args = ["log", FORMAT, `--skip=${w.skip}`, `-n`, String(w.count)];
  if (w.tool !== undefined) args.push("-E", `--grep=^${w.tool}: `);
  if (w.since) args.push(`--since=${w.since.toISOString()}`);
  if (w.until) args.push(`--until=${w.until.toISOString()}`);
  args.push(w.from ?? "HEAD", "--");
  for (const p of w.paths ?? []) args.push(`:(literal)${p}`);
  const r = await runGit(root, args, undefined, undefined, GIT_READ_TIMEOUT_MS);
  if (r.code !== 0) {
    if (/does not have any commits|unknown revision|bad revision/.test(r.stderr)) return [];
    throw failed("log", r.code, r.stderr);
  }
  const heads = parseCommits(r.stdout);
  const files = await commitFiles(
    root,
    heads.map((c) => c.sha),
  );
  return heads.map((c) => ({ ...c, files: files.get(c.sha) ?? [] }));
}

/** Files of one commit judged and shown at most (an import commit may add 100,000). */
export const MAX_COMMIT_FILES = 1_000;

/** Commit → its first MAX_COMMIT_FILES + 1 files (the extra one says "more"); commits never change. */
const filesCache = new Map<string, RawCommit["files"]>();
let cachedFiles = 0;
/** File entries the cache holds at most (oldest commits dropped first). */
const MAX_CACHED_FILES = 200_000;

/**
 * The files each of `shas` changed (a merge: against its first parent), each list cut after
 * MAX_COMMIT_FILES + 1 entries. One `git show` for the commits not cached yet: a 100,000-file
 * import costs its diff once per process, not once per page.
 */
export async function commitFiles(
  root: string,
  shas: readonly string[],
): Promise<Map<string, RawCommit["files"]>> {
  const out = new Map<string, RawCommit["files"]>();
  const missing: string[] = [];
  for (const sha of shas) {
    const hit = filesCache.get(`${root}\0${sha}`);
    if (hit) out.set(sha, hit);
    else missing.push(sha);
  }
  if (missing.length === 0) return out;
  const r = await runGit(
    root,
    ["show", FORMAT, "--name-status", "-M", "--diff-merges=first-parent", ...missing],
    undefined,
    undefined,
    GIT_READ_TIMEOUT_MS,
  );
  if (r.code !== 0) throw failed("show", r.code, r.stderr);
  for (const c of parseCommits(r.stdout)) {
    const files = c.files.slice(0, MAX_COMMIT_FILES + 1);
    out.set(c.sha, files);
    remember(`${root}\0${c.sha}`, files);
  }
  return out;
}

function remember(key: string, files: RawCommit["files"]): void {
  filesCache.set(key, files);
  cachedFiles += files.length + 1;
  for (const [old, list] of filesCache) {
    if (cachedFiles <= MAX_CACHED_FILES) break;
    filesCache.delete(old);
    cachedFiles -= list.length + 1;
  }
}

/**
 * The full sha of `sha` when it names a commit reachable from HEAD (the KB's own history), else
 * null — an unknown sha, a blob, a commit of another branch all answer alike.
 */
export async function resolveCommit(root: string, sha: string): Promise<string | null> {
  if (!isShaLike(sha)) return null;
  const r = await runGit(
    root,
    ["rev-parse", "--verify", "-q", `${sha}^{commit}`],
    undefined,
    undefined,
    GIT_READ_TIMEOUT_MS,
  );
  const full = r.stdout.trim();
  if (r.code !== 0 || !/^[0-9a-f]{40}$/.test(full)) return null;
  const anc = await runGit(
    root,
    ["merge-base", "--is-ancestor", full, "HEAD"],
    undefined,
    undefined,
    GIT_READ_TIMEOUT_MS,
  );
  return anc.code === 0 ? full : null;
}

/** One resolved commit with its files (`resolveCommit` first). */
export async function readCommit(root: string, fullSha: string): Promise<RawCommit | null> {
  const commits = await readLog(root, { from: fullSha, skip: 0, count: 1 });
  return commits[0] ?? null;
}

/** Patch bytes of one diff answered at most. */
export const MAX_PATCH_BYTES = 512 * 1024;
/** Files named in one diff's pathspec at most (the argument list stays far below its limit). */
export const MAX_PATCH_FILES = 500;

/**
 * The patch of `fullSha` (a merge against its first parent), limited to `paths` (literal
 * pathspecs; "all" for a whole-KB reader), cut at MAX_PATCH_BYTES and MAX_PATCH_FILES. An empty
 * `paths` answers an empty patch without running git.
 */
export async function readPatch(
  root: string,
  fullSha: string,
  paths: readonly string[] | "all",
): Promise<{ text: string; truncated: boolean }> {
  if (paths !== "all" && paths.length === 0) return { text: "", truncated: false };
  const spec = paths === "all" ? [] : paths.slice(0, MAX_PATCH_FILES).map((p) => `:(literal)${p}`);
  const r = await runGit(
    root,
    [
      "show",
      "--format=",
      "--patch",
      "-M",
      "--no-color",
      "--no-ext-diff",
      "--no-textconv",
      "--diff-merges=first-parent",
      fullSha,
      "--",
      ...spec,
    ],
    undefined,
    undefined,
    GIT_READ_TIMEOUT_MS,
  );
  if (r.code !== 0) throw failed("show", r.code, r.stderr);
  const out = cut(r.stdout, MAX_PATCH_BYTES);
  return paths !== "all" && paths.length > MAX_PATCH_FILES ? { ...out, truncated: true } : out;
}

/** A file's text at a commit, cut at `maxBytes`; null when the commit has no such file. */
export async function readBlob(
  root: string,
  sha: string,
  path: string,
  maxBytes: number,
): Promise<{ text: string; truncated: boolean } | null> {
  if (!isShaLike(sha)) return null;
  const r = await runGit(
    root,
    ["show", "--no-textconv", `${sha}:${path}`],
    undefined,
    undefined,
    GIT_READ_TIMEOUT_MS,
  );
  if (r.code !== 0) {
    if (r.code === GIT_TIMED_OUT) throw failed("show", r.code, r.stderr);
    return null;
  }
  return cut(r.stdout, maxBytes);
}

function cut(text: string, maxBytes: number): { text: string; truncated: boolean } {
  if (Buffer.byteLength(text, "utf8") <= maxBytes) return { text, truncated: false };
  // Cut on a character boundary: a partial UTF-8 sequence would render as U+FFFD.
  const buf = Buffer.from(text, "utf8").subarray(0, maxBytes);
  return { text: buf.toString("utf8").replace(/\uFFFD$/, ""), truncated: true };
}

function failed(cmd: string, code: number, stderr: string): KbError {
  if (code === GIT_TIMED_OUT)
    return new KbError("git_failed", `git ${cmd} did not finish within ${GIT_READ_TIMEOUT_MS} ms`);
  return new KbError("git_failed", `git ${cmd} failed: ${stderr.trim().split("\n")[0] ?? ""}`);
}
