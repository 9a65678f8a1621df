/**
 * The renderer's own safety gate (pure): every artifact a target renders passes here first, even
 * though the server and the manifest reader checked it already — a target writes into the
 * user's agent tools, so it trusts nothing it did not check itself (docs/decisions.md
 * "The client re-checks the manifest more strictly").
 *
 * - names: `[a-z0-9][a-z0-9._-]*`, at most 64 bytes (the KB layout rule, docs/provisioning.md);
 * - file paths: the KB's one path rule (`normalizeRelPath`: no absolute path, no hidden
 *   segment, no backslash or control character) and already normalized (no `..`, no `./`);
 * - executable bits only on skill and hook files;
 * - `SKILL.md` and agent files must carry YAML frontmatter that parses.
 *
 * A failing artifact is dropped whole with a note, never rendered in part. Two KBs offering
 * the same kind and name (skill, agent, hook: their paths have no KB in them): identical content
 * (the bundled skills every KB lists) is rendered once; different content keeps the first KB's
 * (by name) and notes the other.
 */
import { normalizeRelPath } from "../../../common/paths.js";
import type { Artifact } from "../types.js";
import { type Frontmatter, parseFrontmatter } from "./frontmatter.js";

const NAME = /^[a-z0-9][a-z0-9._-]*$/;
const MAX_NAME_BYTES = 64;

/** Why `path` may not be written, or null when it is a clean relative POSIX path. */
export function unsafePath(path: string): string | null {
  try {
    if (normalizeRelPath(path) !== path)
      return `file path ${JSON.stringify(path)} is not normalized`;
  } catch (err) {
    return (err as Error).message;
  }
  return null;
}

/** Why `name` may not be used as a file or folder name, or null when it is fine. */
export function unsafeName(name: string): string | null {
  if (!NAME.test(name) || Buffer.byteLength(name) > MAX_NAME_BYTES) {
    return `name ${JSON.stringify(name)} must match [a-z0-9][a-z0-9._-]* (at most ${MAX_NAME_BYTES} bytes)`;
  }
  return null;
}

function mainFile(a: Artifact): string | undefined {
  if (a.kind === "skill") return "SKILL.md";
  if (a.kind === "hook") return "hook.json";
  if (a.kind === "agent") return `${a.name}.md`;
  if (a.kind === "mcp") return `${a.name}.json`;
  return "instructions.md";
}

function problem(a: Artifact): string | null {
  const bad = unsafeName(a.name) ?? (a.kb !== "" ? null : "no KB");
  if (bad) return bad;
  if (a.files.length === 0) return "it has no files";
  const seen = new Set<string>();
  for (const f of a.files) {
    const p = unsafePath(f.path);
    if (p) return p;
    if (seen.has(f.path)) return `file ${f.path} is listed twice`;
    seen.add(f.path);
    if (f.executable && a.kind !== "skill" && a.kind !== "hook") {
      return `${f.path} is marked executable, which only skill and hook files may be`;
    }
  }
  // Single-file kinds carry exactly their one file; folder kinds need their main file.
  const main = mainFile(a) as string;
  const single = a.kind === "agent" || a.kind === "mcp" || a.kind === "instructions";
  if (single && a.files.length !== 1) return `a ${a.kind} artifact must be one file`;
  const mainBytes = a.files.find((f) => f.path === main);
  if (!mainBytes) return `${main} is missing`;
  if (a.kind === "skill" || a.kind === "agent") {
    const fm = frontmatterOf(a);
    if (fm && "error" in fm) return `${mainBytes.path}: ${fm.error}`;
  }
  return null;
}

/**
 * Parsed frontmatter of a skill's SKILL.md or an agent file, memoized per artifact object: the
 * engine renders the same artifacts for every provider, and YAML parsing is most of a render's
 * cost (200 skills ≈ 50–300 ms per pass on the 2-core machine). The artifact is immutable.
 */
const FRONTMATTER = new WeakMap<Artifact, Frontmatter | { error: string }>();

export function frontmatterOf(a: Artifact): Frontmatter | { error: string } | undefined {
  const main = a.kind === "skill" ? "SKILL.md" : a.kind === "agent" ? `${a.name}.md` : undefined;
  const file = a.files.find((f) => f.path === main);
  if (!file) return undefined;
  let fm = FRONTMATTER.get(a);
  if (!fm) {
    fm = parseFrontmatter(file.bytes.toString("utf8"));
    FRONTMATTER.set(a, fm);
  }
  return fm;
}

/** An agent's frontmatter for a target that converts it, or `{ error }`. */
export function agentFrontmatterOf(a: Artifact): Frontmatter | { error: string } {
  return frontmatterOf(a) ?? { error: "the agent file is missing" };
}

export interface CheckedArtifacts {
  artifacts: Artifact[];
  notes: string[];
}

/** The artifacts a target may render, deduplicated, in a stable order; and the notes. */
export function checkArtifacts(artifacts: readonly Artifact[]): CheckedArtifacts {
  const notes: string[] = [];
  const sorted = [...artifacts].sort(
    (a, b) =>
      cmp(a.kind, b.kind) || cmp(a.name, b.name) || cmp(a.kb, b.kb) || cmp(a.source, b.source),
  );
  const kept = new Map<string, Artifact>();
  for (const a of sorted) {
    const bad = problem(a);
    if (bad) {
      notes.push(`${a.kb}/${a.kind}/${printableName(a.name)} not written: ${bad}`);
      continue;
    }
    // MCP entries carry the KB in their name, so only the other kinds can clash across KBs.
    const key = a.kind === "mcp" ? `${a.kind}\0${a.kb}\0${a.name}` : `${a.kind}\0${a.name}`;
    const first = kept.get(key);
    if (!first) kept.set(key, a);
    else if (first.contentHash !== a.contentHash) {
      notes.push(
        `${a.kb}/${a.kind}/${a.name} not written: KB ${first.kb} has a different ${a.kind} of the same name (rename one of them)`,
      );
    }
  }
  return { artifacts: [...kept.values()], notes };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function printableName(name: string): string {
  return JSON.stringify(name).slice(1, -1);
}

/** `"<kb>/<kind>/<name>"`, the origin of every file and section an artifact yields. */
export function originOf(a: Artifact): string {
  return `${a.kb}/${a.kind}/${a.name}`;
}
