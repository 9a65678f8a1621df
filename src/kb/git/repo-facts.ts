/**
 * What a commit made in process must know of the repository's git setup (docs/decisions.md "A
 * write commits through objects written in process"): where objects go, which files make git
 * commit behave differently when present (hooks it runs even with --no-verify, a merge,
 * cherry-pick or revert in progress, attributes files), and whether the configuration asks for
 * something only git commit does (signing, line-ending conversion, another object format, …).
 *
 * Read with two processes (`rev-parse`, `config --list`) and kept until a configuration file
 * changes: every read first stats the files it came from (and those that could appear: the
 * global and system files), which costs microseconds, so a `git config` run by a person is seen
 * by the next write.
 */
import { statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { git } from "./git.js";

type Env = Readonly<Record<string, string | undefined>>;

export interface RepoFacts {
  /** The objects folder (GIT_OBJECT_DIRECTORY and linked worktrees honoured). */
  objectsDir: string;
  /** Present, any of them sends the commit through git commit (hooks, a merge in progress, …). */
  watched: string[];
  /** The file the private index of an earlier version lived in (removed once). */
  legacyIndex: string;
  /** Why every commit must be git commit's own (a configuration key), or null. */
  unusual: string | null;
  /** `committer.name` / `committer.email`: they win over user.* for the committer. */
  committer: { name?: string; email?: string };
}

/** Per --git-path: hooks git commit runs even with --no-verify, states it refuses paths in. */
const WATCHED = [
  "hooks/prepare-commit-msg",
  "hooks/post-commit",
  "MERGE_HEAD",
  "CHERRY_PICK_HEAD",
  "REVERT_HEAD",
  "info/attributes",
];
/** Repository extensions that change nothing of how an object or a commit is written. */
const HARMLESS_EXTENSIONS = new Set(["noop", "preciousobjects", "worktreeconfig"]);

export class RepoFactsReader {
  #facts: RepoFacts | null = null;
  #files: string[] = [];
  #signature = "";

  constructor(
    private readonly cwd: string,
    private readonly env: Env,
  ) {}

  /** The facts, read again when a configuration file or the git environment changed. */
  async get(): Promise<RepoFacts> {
    const before = this.#signatureOf(this.#files);
    if (this.#facts && before === this.#signature) return this.#facts;
    const asked = ["objects", "config", "config.worktree", "cartographer-index", ...WATCHED];
    const [paths, config] = await Promise.all([
      git(this.cwd, ["rev-parse", ...asked.flatMap((p) => ["--git-path", p])], undefined, this.env),
      git(this.cwd, ["config", "--list", "-z", "--show-origin"], undefined, this.env),
    ]);
    const [objectsDir, local, worktree, legacyIndex, ...watched] = paths
      .trim()
      .split("\n")
      .map((p) => (isAbsolute(p) ? p : join(this.cwd, p))) as [string, ...string[]];
    const { values, origins } = parseConfigList(config, this.cwd);
    const files = [...new Set([local, worktree, ...this.#outsideFiles(), ...origins])];
    // The stats taken before the read when the same files were read: a change made during it
    // is seen by the next write. (A new list is stat'ed now.)
    const same = files.length === this.#files.length && files.every((f, i) => f === this.#files[i]);
    this.#files = files as string[];
    this.#signature = same ? before : this.#signatureOf(this.#files);
    this.#facts = {
      objectsDir,
      watched: [...watched, ...this.#attributesFiles(values)],
      legacyIndex: legacyIndex as string,
      unusual: unusualConfig(values),
      committer: {
        ...(values.has("committer.name") ? { name: values.get("committer.name") } : {}),
        ...(values.has("committer.email") ? { email: values.get("committer.email") } : {}),
      },
    };
    return this.#facts;
  }

  /** The global and system configuration files git reads (present or not). */
  #outsideFiles(): string[] {
    const { HOME, XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM, GIT_CONFIG_NOSYSTEM } =
      this.env;
    const xdg = XDG_CONFIG_HOME || (HOME ? join(HOME, ".config") : null);
    const global = GIT_CONFIG_GLOBAL
      ? [GIT_CONFIG_GLOBAL]
      : [HOME ? join(HOME, ".gitconfig") : null, xdg ? join(xdg, "git", "config") : null];
    const system = GIT_CONFIG_NOSYSTEM ? [] : [GIT_CONFIG_SYSTEM || "/etc/gitconfig"];
    return [...global, ...system].filter((f): f is string => !!f);
  }

  /** Attributes files outside the tree: the global one (default place) and the system one. */
  #attributesFiles(values: ReadonlyMap<string, string>): string[] {
    const { HOME, XDG_CONFIG_HOME } = this.env;
    const xdg = XDG_CONFIG_HOME || (HOME ? join(HOME, ".config") : null);
    return [
      ...(values.has("core.attributesfile") || !xdg ? [] : [join(xdg, "git", "attributes")]),
      "/etc/gitattributes",
    ];
  }

  #signatureOf(files: readonly string[]): string {
    const env = Object.entries(this.env)
      .filter(([k]) =>
        /^(GIT_CONFIG|GIT_DIR$|GIT_COMMON_DIR$|GIT_OBJECT_DIRECTORY$|HOME$|XDG_CONFIG_HOME$)/.test(
          k,
        ),
      )
      .sort(([a], [b]) => (a < b ? -1 : 1));
    const stats = files.map((f) => {
      const s = statSync(f, { bigint: true, throwIfNoEntry: false });
      return s ? `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}` : "-";
    });
    return JSON.stringify([env, stats]);
  }
}

/** `git config --list -z --show-origin`: the last value of each key, and the files read. */
export function parseConfigList(
  out: string,
  cwd: string,
): { values: Map<string, string>; origins: string[] } {
  const values = new Map<string, string>();
  const origins = new Set<string>();
  const fields = out.split("\0");
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const origin = fields[i] as string;
    const entry = fields[i + 1] as string;
    if (origin.startsWith("file:")) {
      const file = origin.slice(5);
      origins.add(isAbsolute(file) ? file : join(cwd, file));
    }
    const nl = entry.indexOf("\n");
    // A key written without "=" is a boolean true.
    if (nl < 0) values.set(entry.toLowerCase(), "true");
    else values.set(entry.slice(0, nl).toLowerCase(), entry.slice(nl + 1));
  }
  return { values, origins: [...origins] };
}

/** git's boolean: true/yes/on/non-zero; false/no/off/0/empty; undefined when unset. */
function gitBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v === "" || v === "false" || v === "no" || v === "off") return false;
  if (v === "true" || v === "yes" || v === "on") return true;
  const n = Number(v);
  return Number.isNaN(n) ? true : n !== 0;
}

/** The first configuration key that makes git commit write differently from plain objects. */
export function unusualConfig(values: ReadonlyMap<string, string>): string | null {
  const version = Number(values.get("core.repositoryformatversion") ?? "0");
  if (!(version === 0 || version === 1)) return "core.repositoryFormatVersion";
  for (const [key, value] of values) {
    if (!key.startsWith("extensions.")) continue;
    const name = key.slice("extensions.".length);
    if (name === "objectformat" && value.toLowerCase() === "sha1") continue;
    if (!HARMLESS_EXTENSIONS.has(name)) return key; // sha256, a compat format, partial clone, …
  }
  const set = (key: string) => values.has(key);
  const on = (key: string) => gitBool(values.get(key)) === true;
  const autocrlf = values.get("core.autocrlf");
  const encoding = values.get("i18n.commitencoding")?.toLowerCase();
  const shared = values.get("core.sharedrepository")?.toLowerCase();
  if (on("commit.gpgsign")) return "commit.gpgSign";
  if (autocrlf !== undefined && gitBool(autocrlf) !== false) return "core.autocrlf";
  if (set("core.attributesfile")) return "core.attributesFile";
  if (encoding !== undefined && encoding !== "utf-8" && encoding !== "utf8")
    return "i18n.commitEncoding";
  if (set("commit.cleanup")) return "commit.cleanup";
  if (shared !== undefined && !["false", "umask", "0", "no", "off"].includes(shared))
    return "core.sharedRepository";
  if (gitBool(values.get("core.filemode")) === false) return "core.fileMode";
  if (on("core.ignorecase")) return "core.ignoreCase";
  if (on("core.precomposeunicode")) return "core.precomposeUnicode";
  if (on("core.bare") || set("core.worktree")) return "core.bare/core.worktree";
  return null;
}
