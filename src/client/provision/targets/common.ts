/**
 * Building blocks the provider targets share (pure): where a skill's or a hook's files land,
 * how a KB agent becomes another tool's agent file, which kinds a target left out.
 */
import path from "node:path";
import type { Artifact, DesiredFile } from "../types.js";
import { originOf } from "./checks.js";

/** Every file of a folder artifact (skill, hook) under `dir`, with its executable bit. */
export function folderFiles(a: Artifact, dir: string): DesiredFile[] {
  return a.files.map((f) => ({
    path: path.join(dir, ...f.path.split("/")),
    bytes: f.bytes,
    executable: f.executable,
    origin: originOf(a),
  }));
}

/**
 * A hook's files under `dir`: every file but hook.json executable, whatever its KB mode — Go's
 * floor (hooks retain an executable bit on every file but hook.json), so a Go KB whose script
 * is committed 100644 still runs. The hook's bytes, and so its content hash, are unchanged.
 */
export function hookFiles(a: Artifact, dir: string): DesiredFile[] {
  return folderFiles(a, dir).map((f, i) => ({
    ...f,
    executable: a.files[i]?.path !== "hook.json",
  }));
}

/** One generated file (an agent converted for the tool, a plugin, the bootstrap script). */
export function generatedFile(
  file: string,
  text: string,
  origin: string,
  executable = false,
): DesiredFile {
  return { path: file, bytes: Buffer.from(text, "utf8"), executable, origin };
}

/** The artifacts of one kind. */
export function ofKind(artifacts: readonly Artifact[], kind: Artifact["kind"]): Artifact[] {
  return artifacts.filter((a) => a.kind === kind);
}

/** "a, b and c" for notes. */
export function listOf(names: string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/**
 * One note for the artifacts of a kind a tool cannot take: `<label> has no <what> (<why>):
 * <kb/name, …> not written`. Nothing when there are none.
 */
export function unsupported(label: string, arts: Artifact[], what: string, why: string): string[] {
  if (arts.length === 0) return [];
  const names = arts.map((a) => `${a.kb}/${a.kind}/${a.name}`);
  return [`${label}: ${what} not supported (${why}); ${listOf(names)} not written`];
}

/** The origin of files and sections the bootstrap hook yields. */
export const BOOTSTRAP_ORIGIN = "cartographer/hook/bootstrap";

/**
 * MCP sections the last sync left (ctx.ownedSections) in `file` that nothing renders now:
 * returned with `desired: null` so the engine can prune them (types.ts).
 */
export function staleSections(
  owned: readonly { file: string; id: string }[] | undefined,
  file: string,
  rendered: readonly { file: string; id: string }[],
  make: (entry: string) => import("../types.js").ManagedSection,
): import("../types.js").ManagedSection[] {
  const have = new Set(rendered.filter((s) => s.file === file).map((s) => s.id));
  const out = [];
  for (const s of owned ?? []) {
    if (s.file !== file || !s.id.startsWith("mcp:") || have.has(s.id)) continue;
    have.add(s.id);
    out.push(make(s.id.slice("mcp:".length)));
  }
  return out;
}
