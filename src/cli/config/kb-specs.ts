/**
 * The KBs a server config names: one mount spec each, the data dir's KB folders, and the
 * de-duplication (same folder twice, empty or `routed` names, a name used twice) with warnings.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, resolve as resolvePath } from "node:path";
import { SettingError } from "../../common/errors.js";
import type { GitIdentity } from "../../kb/core/types.js";
import type { KbMountSpec } from "./resolve.js";
import { normalizeKbName } from "./values.js";

export function mountSpec(
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
