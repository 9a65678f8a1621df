/**
 * The KBs a server config names: one mount spec each, the data dir's KB folders, and the
 * de-duplication (same folder twice, empty or `routed` names, a name used twice) with warnings.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, resolve as resolvePath } from "node:path";
import { SettingError } from "../../common/errors.js";
import type { GitIdentity } from "../../kb/core/types.js";
import type { Picked, Settings } from "./pick.js";
import type { FileConfig } from "./schema.js";
import { withKbSopsKey } from "./sops-keys.js";
import { envRemotes, kbRemoteKeys, remoteRoot } from "./sync-keys.js";
import type { KbMountSpec } from "./types.js";
import { normalizeKbName } from "./values.js";

/** What names the KBs of a server, besides the data directory's folders. */
export interface KbSources {
  /** `--kb` / CARTOGRAPHER_KB, split on commas; it replaces `kbs[]`. */
  kbPaths: Picked<string[]> | undefined;
  file: FileConfig;
  settings: Settings;
  dataDir: string | null;
  globalAuthor: GitIdentity | undefined;
  at: (p: string) => string;
}

/**
 * One mount spec per KB named by `--kb` (else `kbs[]`), CARTOGRAPHER_KB_REMOTES and the KB
 * folders of the data directory, in that order, before de-duplication (dedupeKbs).
 */
export function kbCandidates(src: KbSources): KbMountSpec[] {
  const { kbPaths, file, settings, dataDir, globalAuthor, at } = src;
  const candidates: KbMountSpec[] = [];
  if (kbPaths) {
    for (const p of kbPaths.value)
      candidates.push(mountSpec(at(p), undefined, false, globalAuthor, `${kbPaths.source} ${p}`));
  } else {
    for (const [i, entry] of (file.kbs ?? []).entries()) {
      const keys = kbRemoteKeys(entry, i, at);
      // A `remote`-only entry is cloned into <data>/<name> (serve clones it when absent).
      const root = entry.path
        ? at(entry.path)
        : remoteRoot(dataDir, entry.remote as string, entry.name, `kbs.${i}.remote`);
      const spec = mountSpec(
        root,
        entry.name,
        entry.allow_artifact_write ?? false,
        entry.git_author ?? keys.author ?? globalAuthor,
        `kbs.${i}`,
      );
      const { author: _author, ...remoteKeys } = keys;
      const provisioning = {
        ...(entry.artifact_signing_seed
          ? { artifactSigningSeed: entry.artifact_signing_seed.toLowerCase() }
          : {}),
        ...(entry.mcp_allowlist ? { mcpAllowlist: entry.mcp_allowlist } : {}),
      };
      candidates.push(
        withKbSopsKey({ ...spec, ...remoteKeys, ...provisioning }, entry.sops_age_key_file, at),
      );
    }
  }
  for (const url of envRemotes(settings)) {
    const root = remoteRoot(dataDir, url, undefined, "CARTOGRAPHER_KB_REMOTES");
    candidates.push({
      ...mountSpec(root, undefined, false, globalAuthor, "CARTOGRAPHER_KB_REMOTES"),
      remote: url,
    });
  }
  if (dataDir && existsSync(dataDir)) {
    for (const root of kbFoldersIn(dataDir))
      candidates.push(mountSpec(root, undefined, false, globalAuthor, `data ${dataDir}`));
  }
  return candidates;
}

function mountSpec(
  root: string,
  name: string | undefined,
  allowArtifactWrite: boolean,
  gitAuthor: GitIdentity | undefined,
  source: string,
): KbMountSpec {
  const spec: KbMountSpec = {
    name: name ?? normalizeKbName(basename(root)),
    root,
    allowArtifactWrite,
    source,
  };
  if (gitAuthor) spec.gitAuthor = gitAuthor;
  return spec;
}

/**
 * A configured data dir must exist and be a directory: a typo must not mount nothing quietly.
 * With `init` a missing one is fine: serve creates it (serve-init.ts).
 */
export function checkDataDir(dir: string, value: string, key: string, mayCreate: boolean): void {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    if (mayCreate && !existsSync(dir)) return;
    throw new SettingError(
      `${key}: '${value}' (${dir}) does not exist; create a KB in it with 'cartographer kb create NAME --data ${value}' or fix the path`,
    );
  }
  if (!isDir)
    throw new SettingError(
      `${key}: '${value}' (${dir}) is not a directory; point it at the folder that holds the KB folders`,
    );
}

/** Folders directly under `dataDir` that hold a KB (`data/index.md`), sorted. */
export function kbFoldersIn(dataDir: string): string[] {
  return (
    readdirSync(dataDir)
      .filter((entry) => !entry.startsWith("."))
      .map((entry) => resolvePath(dataDir, entry))
      // statSync with throwIfNoEntry: false — a dangling symlink is simply not a KB.
      .filter(
        (p) =>
          statSync(p, { throwIfNoEntry: false })?.isDirectory() === true &&
          existsSync(resolvePath(p, "data", "index.md")),
      )
      .sort((a, b) => normalizeKbName(basename(a)).localeCompare(normalizeKbName(basename(b))))
  );
}

export function dedupeKbs(candidates: KbMountSpec[], warnings: string[]): KbMountSpec[] {
  const byName = new Map<string, KbMountSpec>();
  const roots = new Set<string>();
  for (const kb of candidates) {
    if (roots.has(kb.root)) continue; // the same folder named twice (e.g. --kb inside --data)
    if (kb.name === "") {
      warnings.push(`KB at ${kb.root} (${kb.source}) has no usable name; set kbs[].name. Skipped.`);
      continue;
    }
    if (kb.name === "routed") {
      warnings.push(
        `KB '${kb.name}' at ${kb.root} skipped: the name 'routed' collides with the /mcp/routed endpoint (D288); give it another name with kbs[].name`,
      );
      continue;
    }
    const first = byName.get(kb.name);
    if (first) {
      warnings.push(
        `KB name '${kb.name}' is used twice (${first.root} and ${kb.root}); the second is skipped — set kbs[].name to tell them apart`,
      );
      continue;
    }
    byName.set(kb.name, kb);
    roots.add(kb.root);
  }
  return [...byName.values()];
}
