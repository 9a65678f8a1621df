/**
 * This package's own bundled skills, as content hashes (name → hash). The trust gate uses them
 * for a KB whose signing keys are pinned: a manifest's `source: "bundle"` is a label the server
 * (or anyone between) chose, so there a "bundled" skill is taken only when it is byte for byte
 * the skill this client's package ships (docs/decisions.md, Client).
 *
 * Read like the server reads its package (src/kb/store/artifacts.ts): `skills/<name>/` folders, no
 * hidden entry, no symlink, paths relative to the skill folder, the owner-execute bit kept.
 */
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  type ArtifactFileBytes,
  artifactContentHash,
} from "../../common/provisioning/artifact-sign.js";

/** The package root: this module is three levels below it (src/client/provision, dist/…). */
const PACKAGE_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function filesOf(dir: string, rel = ""): ArtifactFileBytes[] {
  const out: ArtifactFileBytes[] = [];
  for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    if (entry.name.startsWith(".") || entry.isSymbolicLink()) continue;
    const child = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) out.push(...filesOf(dir, child));
    else if (entry.isFile()) {
      const file = path.join(dir, child);
      out.push({
        path: child,
        executable: (lstatSync(file).mode & 0o100) !== 0,
        content: readFileSync(file),
      });
    }
  }
  return out;
}

const cache = new Map<string, ReadonlyMap<string, string>>();

/** name → content hash of every skill under `<root>/skills/` (read once per root). */
export function ownBundledSkills(root: string = PACKAGE_ROOT): ReadonlyMap<string, string> {
  const hit = cache.get(root);
  if (hit) return hit;
  const skills = new Map<string, string>();
  const dir = path.join(root, "skills");
  let entries: import("node:fs").Dirent[] = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    // A package without bundled skills: nothing can be taken as bundled.
  }
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    try {
      const files = filesOf(path.join(dir, entry.name));
      if (files.some((f) => f.path === "SKILL.md")) {
        skills.set(entry.name, artifactContentHash(files));
      }
    } catch {
      // Unreadable: not a skill this client can vouch for.
    }
  }
  cache.set(root, skills);
  return skills;
}
