/**
 * The one rule both client writers follow — connect's provider files (atomic-file.ts) and the
 * provisioning engine (provision/disk.ts, provision/apply.ts): nothing is written through a
 * symlink that leads out of the folder the write belongs to (the user's home, or the project
 * directory of a project binding). A symlink that stays inside (a dotfiles folder in $HOME) is
 * fine; one that leaves it (`~/.agents` → `/srv/shared`) would let a write land anywhere the
 * user can write, so it is refused with a note naming the link (docs/decisions.md, Client).
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";

/** The note every refusal under this rule carries. */
export const ESCAPE_NOTE = "nothing is written through a symlink that leaves your folders";

function inside(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * Where `p` really is: its realpath, or for a dangling link the place it names (a write could
 * create the target there).
 */
function realOf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    try {
      return path.resolve(realOrSelf(path.dirname(p)), readlinkSync(p));
    } catch {
      return p;
    }
  }
}

/** The deepest of `file` and its ancestors that exists (lstat), down to `stop`. */
function deepestExisting(file: string, stop: string): string | undefined {
  for (let p = file; ; p = path.dirname(p)) {
    try {
      lstatSync(p);
      return p;
    } catch {
      if (p === stop || p === path.dirname(p)) return undefined;
    }
  }
}

/**
 * Why writing `file` would go through a symlink that leads out of every anchor, or undefined
 * when it does not. `anchors`: the folders a write may stay in; a file lexically under none of
 * them (an explicit `$CODEX_HOME` elsewhere, `--config /etc/x.yaml`) is not this rule's business.
 */
export function symlinkEscape(file: string, anchors: readonly string[]): string | undefined {
  const abs = path.resolve(file);
  const anchor = anchors
    .map((a) => path.resolve(a))
    .filter((a) => inside(abs, a))
    .sort((a, b) => b.length - a.length)[0];
  if (anchor === undefined) return undefined;
  const existing = deepestExisting(abs, anchor);
  if (existing === undefined) return undefined;
  const real = realOf(existing);
  // Staying in any of the anchors is fine (a project's link into $HOME, a dotfiles folder).
  if (anchors.some((a) => inside(real, realOrSelf(path.resolve(a))))) return undefined;
  // Name the first link on the way down from the anchor.
  const rel = path.relative(anchor, existing);
  let at = anchor;
  for (const part of rel === "" ? [] : rel.split(path.sep)) {
    at = path.join(at, part);
    try {
      if (lstatSync(at).isSymbolicLink()) {
        return `${at} is a symlink to ${readlinkSync(at)}, outside ${anchor}`;
      }
    } catch {
      break;
    }
  }
  return `${existing} resolves to ${real}, outside ${anchor}`;
}
