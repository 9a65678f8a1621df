/**
 * Provisioning artifacts of one folder tree (a KB root, or the package root for bundled ones):
 * `skills/<n>/SKILL.md`+files, `agents/<n>.md`, `hooks/<n>/hook.json`+scripts, `mcp/<n>.json`
 * and `instructions.md` (docs/provisioning.md "KB layout"). Legacy KBs kept them one level down
 * in `artifacts/`; those are read too, the KB-root copy winning.
 *
 * Every file goes through the walk rule (listWalkDir: no symlink, no hidden entry) and the path
 * rule (normalizeRelPath). An artifact with any bad file is skipped whole, with a reason, so a
 * client never receives half an artifact.
 */

import { isKbError } from "../../common/errors.js";
import { normalizeRelPath } from "../../common/paths.js";
import type { ArtifactFileBytes } from "../../common/provisioning/artifact-sign.js";
import { parseDocument } from "../core/frontmatter.js";
import { listWalkDir, readListedFileSync, walkFiles } from "./fsutil.js";

export type ArtifactKind = "skill" | "agent" | "hook" | "mcp" | "instructions";
export const ARTIFACT_KINDS: readonly ArtifactKind[] = [
  "agent",
  "hook",
  "instructions",
  "mcp",
  "skill",
];

/** One artifact file's size limit (and the artifact_write limit). */
export const ARTIFACT_FILE_MAX_BYTES = 256 * 1024;
/** More files than this in one skill or hook folder: skipped (a provisioning payload, not a tree). */
export const ARTIFACT_MAX_FILES = 200;
/** More bytes than this in one artifact: skipped (bounds one manifest entry, not only one file). */
export const ARTIFACT_MAX_TOTAL_BYTES = 4 * 1024 * 1024;
/** Folder name of pre-provisioning KBs. */
export const LEGACY_ARTIFACTS_DIR = "artifacts";
/** The KB-root folders (and the one file) artifacts live in; nothing else is an artifact. */
export const ARTIFACT_ROOTS = ["skills", "agents", "hooks", "mcp"] as const;
export const INSTRUCTIONS_FILE = "instructions.md";

const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export interface ArtifactRecord {
  kind: ArtifactKind;
  name: string;
  /** `version` frontmatter of SKILL.md or the agent file, else "". */
  version: string;
  /** `description` frontmatter, else "". */
  description: string;
  /** Where it lives, relative to the scanned root (`skills/x`, `agents/x.md`). */
  location: string;
  /** Sorted by path; paths relative to the artifact. */
  files: ArtifactFileBytes[];
}

export interface SkippedArtifact {
  kind: ArtifactKind;
  name: string;
  reason: string;
}

export interface ArtifactScan {
  artifacts: ArtifactRecord[];
  skipped: SkippedArtifact[];
  /** Paths of the legacy `artifacts/` copies that were read (for the one-time warning). */
  legacy: string[];
}

interface Layout {
  kind: ArtifactKind;
  dir: string;
  /** Folder artifacts: the file that must exist. Single-file artifacts: the extension. */
  main?: string;
  ext?: string;
  /** Whether the exec bit of the files is kept. */
  exec: boolean;
}

const LAYOUTS: Layout[] = [
  { kind: "skill", dir: "skills", main: "SKILL.md", exec: true },
  { kind: "hook", dir: "hooks", main: "hook.json", exec: true },
  { kind: "agent", dir: "agents", ext: ".md", exec: false },
  { kind: "mcp", dir: "mcp", ext: ".json", exec: false },
];

class Skip extends Error {}

async function readFiles(
  root: string,
  base: string,
  rels: string[],
  exec: boolean,
): Promise<ArtifactFileBytes[]> {
  if (rels.length > ARTIFACT_MAX_FILES) {
    throw new Skip(`more than ${ARTIFACT_MAX_FILES} files`);
  }
  const files: ArtifactFileBytes[] = [];
  let total = 0;
  for (const rel of rels) {
    try {
      normalizeRelPath(rel, "artifact file");
    } catch (e) {
      if (isKbError(e)) throw new Skip(`bad file name ${JSON.stringify(rel)}`);
      throw e;
    }
    // Listed by the walk (folder real path checked); read without following a symlink.
    const read = readListedFileSync(root, base ? `${base}/${rel}` : rel);
    if (read === null) throw new Skip(`file ${rel} vanished while read`);
    if (read.bytes.length > ARTIFACT_FILE_MAX_BYTES) {
      throw new Skip(`file ${rel} is over ${ARTIFACT_FILE_MAX_BYTES} bytes`);
    }
    total += read.bytes.length;
    if (total > ARTIFACT_MAX_TOTAL_BYTES) {
      throw new Skip(`its files are over ${ARTIFACT_MAX_TOTAL_BYTES} bytes in total`);
    }
    files.push({
      path: rel,
      executable: exec && (read.mode & 0o100) !== 0,
      content: new Uint8Array(read.bytes),
    });
  }
  // One artifact at a time: let other requests run between them.
  await new Promise((r) => setImmediate(r));
  return files.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
}

function frontmatterOf(bytes: Uint8Array | undefined): { version: string; description: string } {
  if (!bytes) return { version: "", description: "" };
  try {
    const fm = parseDocument(Buffer.from(bytes).toString("utf8")).frontmatter;
    const str = (v: unknown) =>
      typeof v === "string" || typeof v === "number" ? String(v).trim() : "";
    return { version: str(fm.version), description: str(fm.description) };
  } catch {
    return { version: "", description: "" };
  }
}

async function scanLayout(root: string, prefix: string, layout: Layout, scan: ArtifactScan) {
  const dir = `${prefix}${layout.dir}`;
  for (const entry of await listWalkDir(root, dir)) {
    const isFolderKind = layout.main !== undefined;
    if (isFolderKind ? !entry.isDirectory() : !entry.isFile()) continue;
    if (!isFolderKind && !entry.name.endsWith(layout.ext ?? "")) continue;
    const name = isFolderKind ? entry.name : entry.name.slice(0, -(layout.ext ?? "").length);
    const skip = (reason: string) => scan.skipped.push({ kind: layout.kind, name, reason });
    if (!NAME.test(name)) {
      skip("name must match [a-z0-9][a-z0-9._-]* (at most 64 bytes)");
      continue;
    }
    const location = `${dir}/${entry.name}`;
    try {
      let files: ArtifactFileBytes[];
      if (isFolderKind) {
        const rels = (await walkFiles(root, location)).map((p) => p.slice(location.length + 1));
        if (!rels.includes(layout.main as string)) throw new Skip(`no ${layout.main}`);
        files = await readFiles(root, location, rels, layout.exec);
      } else {
        files = await readFiles(root, dir, [entry.name], false);
      }
      const mainFile = layout.kind === "skill" || layout.kind === "agent" ? files : [];
      const meta = frontmatterOf(
        mainFile.find((f) => f.path === (layout.main ?? entry.name))?.content,
      );
      scan.artifacts.push({ kind: layout.kind, name, ...meta, location, files });
    } catch (e) {
      if (e instanceof Skip) skip(e.message);
      else throw e;
    }
  }
}

async function scanTree(root: string, prefix: string, instructionsName: string | null) {
  const scan: ArtifactScan = { artifacts: [], skipped: [], legacy: [] };
  for (const layout of LAYOUTS) await scanLayout(root, prefix, layout, scan);
  if (instructionsName !== null) {
    const entries = await listWalkDir(root, prefix === "" ? "." : prefix.slice(0, -1));
    if (entries.some((e) => e.isFile() && e.name === INSTRUCTIONS_FILE)) {
      try {
        const files = await readFiles(root, prefix.slice(0, -1), [INSTRUCTIONS_FILE], false);
        scan.artifacts.push({
          kind: "instructions",
          name: instructionsName,
          version: "",
          description: "",
          location: `${prefix}${INSTRUCTIONS_FILE}`,
          files,
        });
      } catch (e) {
        if (!(e instanceof Skip)) throw e;
        scan.skipped.push({ kind: "instructions", name: instructionsName, reason: e.message });
      }
    }
  }
  return scan;
}

const key = (a: { kind: string; name: string }) => `${a.kind}\0${a.name}`;

/**
 * Every artifact under `root`, sorted by kind then name. `instructionsName` names the
 * instructions artifact (the KB name); null leaves `instructions.md` out (bundled artifacts).
 * `legacy` also reads `artifacts/`, where the root copy of the same kind+name wins.
 */
export async function scanArtifacts(
  root: string,
  opts: { instructionsName: string | null; legacy: boolean },
): Promise<ArtifactScan> {
  const scan = await scanTree(root, "", opts.instructionsName);
  if (opts.legacy) {
    const old = await scanTree(root, `${LEGACY_ARTIFACTS_DIR}/`, opts.instructionsName);
    const seen = new Set([...scan.artifacts, ...scan.skipped].map(key));
    for (const a of old.artifacts) {
      if (seen.has(key(a))) continue;
      scan.artifacts.push(a);
      scan.legacy.push(a.location);
    }
    for (const s of old.skipped) if (!seen.has(key(s))) scan.skipped.push(s);
  }
  const order = (a: { kind: string; name: string }, b: { kind: string; name: string }) =>
    a.kind === b.kind
      ? Buffer.compare(Buffer.from(a.name), Buffer.from(b.name))
      : a.kind < b.kind
        ? -1
        : 1;
  scan.artifacts.sort(order);
  scan.skipped.sort(order);
  return scan;
}
