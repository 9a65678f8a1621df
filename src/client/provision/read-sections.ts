/** Reading the shared files a plan compares (provision.ts): one read per file. */
import { ancestorProblem, BlockedPath, type DirCache, readBytesNoFollow, rootOf } from "./disk.js";
import { type DiskSection, sectionKey } from "./plan.js";
import { readRootFile } from "./root-file.js";
import type { ManagedSection } from "./types.js";

/**
 * Our part of every shared file, read once per file: never through a symlink below a root; a
 * file that is a root of its own through a link that stays inside the anchors (root-file.ts).
 */
export async function readSections(
  sections: readonly ManagedSection[],
  roots: readonly string[],
  cache: DirCache,
  anchors: readonly string[],
): Promise<Map<string, DiskSection>> {
  const texts = new Map<string, Promise<string | null>>();
  const textOf = (file: string) => {
    let hit = texts.get(file);
    if (!hit) {
      hit = (async () => {
        const root = rootOf(file, roots);
        if (!root) throw new BlockedPath(`${file} is outside the provider's folders`);
        if (root === file) return readRootFile(file, anchors);
        const problem = ancestorProblem(root, file, cache);
        if (problem === "absent") return null;
        if (problem) throw new BlockedPath(problem);
        const bytes = await readBytesNoFollow(file);
        return bytes === null ? null : bytes.toString("utf8");
      })();
      texts.set(file, hit);
    }
    return hit;
  };
  const out = new Map<string, DiskSection>();
  for (const s of sections) {
    try {
      out.set(sectionKey(s.file, s.id), { state: "ok", current: s.read(await textOf(s.file)) });
    } catch (err) {
      out.set(sectionKey(s.file, s.id), { state: "error", why: (err as Error).message });
    }
  }
  return out;
}
