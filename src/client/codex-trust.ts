/**
 * Whether Codex will read a project's `.codex/config.toml`. Codex loads project layers only for
 * a trusted project: `[projects."<dir>"] trust_level = "trusted"` in the user config
 * (`$CODEX_HOME/config.toml`, default `~/.codex/config.toml`), keyed by the directory Codex
 * runs in or by the root of its git repository (the main checkout for a linked worktree).
 * Checked against Codex CLI 0.171.0 (`codex mcp list` in a sandbox $HOME): an untrusted or
 * `"untrusted"` project's entry is not listed; a trusted directory or git root makes it listed;
 * a trusted parent that is not the git root does not.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { readTextOrNull } from "./atomic-file.js";

export interface CodexTrust {
  trusted: boolean;
  /** The user config Codex reads the trust from. */
  configFile: string;
  /** The directory to trust: the git root when the project is in a repository, else itself. */
  key: string;
  /** The trust_level found, when the project has one. */
  level?: string;
  /** Set when the user config could not be read or parsed (trust unknown, reported as not trusted). */
  problem?: string;
}

/** `$CODEX_HOME`, else `~/.codex` (the directory Codex reads its user config from). */
export function codexHome(home: string, env: Record<string, string | undefined>): string {
  const fromEnv = env.CODEX_HOME;
  return fromEnv && fromEnv.trim() !== "" ? path.resolve(fromEnv) : path.join(home, ".codex");
}

async function isDirectory(p: string): Promise<boolean | undefined> {
  try {
    return (await fs.stat(p)).isDirectory();
  } catch {
    return undefined;
  }
}

/**
 * The root Codex keys trust by: the nearest ancestor with a `.git` directory, or, for a linked
 * worktree (`.git` file `gitdir: <main>/.git/worktrees/<name>`), the main checkout. Undefined
 * when the directory is in no repository (or the `.git` file points elsewhere, as Codex treats it).
 */
export async function gitRootForTrust(dir: string): Promise<string | undefined> {
  let current = path.resolve(dir);
  for (;;) {
    const dotGit = path.join(current, ".git");
    const kind = await isDirectory(dotGit);
    if (kind === true) return current;
    if (kind === false) {
      const text = (await readTextOrNull(dotGit)) ?? "";
      const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1];
      if (!pointer) return undefined;
      const gitDir = path.resolve(current, pointer);
      const worktrees = path.dirname(gitDir);
      if (path.basename(worktrees) !== "worktrees") return undefined;
      return path.dirname(path.dirname(worktrees));
    }
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

async function realpathOr(p: string): Promise<string> {
  try {
    return await fs.realpath(p);
  } catch {
    return p;
  }
}

/** Reads the trust Codex gives `projectDir` from its user config. Never throws. */
export async function codexProjectTrust(
  projectDir: string,
  home: string,
  env: Record<string, string | undefined>,
): Promise<CodexTrust> {
  const configFile = path.join(codexHome(home, env), "config.toml");
  const dir = path.resolve(projectDir);
  const root = await gitRootForTrust(dir);
  const key = root ?? dir;
  let projects: Record<string, unknown> = {};
  let problem: string | undefined;
  try {
    const text = await readTextOrNull(configFile);
    const doc = text === null ? {} : (parseToml(text) as Record<string, unknown>);
    const table = doc.projects;
    if (table !== null && typeof table === "object" && !Array.isArray(table)) {
      projects = table as Record<string, unknown>;
    }
  } catch (err) {
    problem = `${configFile} could not be read (${(err as Error).message})`;
  }
  // Codex looks up the directory it runs in first, then the repository root.
  const candidates = [dir, await realpathOr(dir)];
  if (root) candidates.push(root, await realpathOr(root));
  for (const candidate of candidates) {
    const entry = projects[candidate] as { trust_level?: unknown } | undefined;
    if (entry && typeof entry.trust_level === "string") {
      const level = entry.trust_level;
      return { trusted: level === "trusted", configFile, key, level };
    }
  }
  return { trusted: false, configFile, key, ...(problem ? { problem } : {}) };
}

/** The exact lines that trust the project, for messages. */
export function trustSnippet(trust: CodexTrust): string {
  return `[projects.${JSON.stringify(trust.key)}]\ntrust_level = "trusted"`;
}
