/**
 * Obsidian's link resolution over the source (docs/import.md "Links"): a path resolves to that
 * file (from the linking note's folder, then from the vault root, then as the tail of a
 * longer path); a bare name to the note with that name, case-insensitively; when several
 * match, the one with the shortest path (fewest folders), ties broken by code-point order of
 * the path. Notes are tried before attachments. Pure.
 */
import { posix } from "node:path";
import type { SourceFile, SourceNote } from "./types.js";

export type Target = { kind: "note"; rel: string } | { kind: "file"; rel: string };

const key = (s: string) => s.normalize("NFC").toLowerCase();
const depth = (rel: string) => rel.split("/").length;

/** The shortest-path rule: fewest segments, then code-point order. */
export function pickShortest(rels: readonly string[]): string | undefined {
  return [...rels].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0))[0];
}

function push(map: Map<string, string[]>, k: string, rel: string): void {
  const list = map.get(k);
  if (list) list.push(rel);
  else map.set(k, [rel]);
}

export class SourceIndex {
  private readonly notePaths = new Map<string, string>();
  private readonly noteNames = new Map<string, string[]>();
  private readonly filePaths = new Map<string, string>();
  private readonly fileNames = new Map<string, string[]>();

  constructor(notes: readonly SourceNote[], files: readonly SourceFile[]) {
    for (const { rel } of notes) {
      const stem = rel.replace(/\.md$/i, "");
      this.notePaths.set(key(stem), rel);
      push(this.noteNames, key(posix.basename(stem)), rel);
    }
    for (const { rel } of files) {
      this.filePaths.set(key(rel), rel);
      push(this.fileNames, key(posix.basename(rel)), rel);
    }
  }

  /** An exact source-relative path (a note with or without `.md`, or a file). */
  private exact(path: string): Target | null {
    const k = key(path);
    const note = this.notePaths.get(k.replace(/\.md$/, ""));
    if (note) return { kind: "note", rel: note };
    const file = this.filePaths.get(k);
    return file ? { kind: "file", rel: file } : null;
  }

  /** The note or file named by an Obsidian link path (`[[…]]`), seen from note `from`. */
  wiki(linkpath: string, from: string): Target | null {
    const lp = linkpath.trim().replace(/^\/+/, "");
    if (lp === "") return null;
    if (lp.startsWith("./") || lp.startsWith("../")) {
      const joined = posix.normalize(posix.join(posix.dirname(from), lp));
      return joined.startsWith("../") ? null : this.exact(joined);
    }
    if (lp.includes("/")) return this.exact(lp) ?? this.tail(lp);
    const k = key(lp).replace(/\.md$/, "");
    const note = pickShortest(this.noteNames.get(k) ?? []);
    if (note) return { kind: "note", rel: note };
    const file = pickShortest(this.fileNames.get(key(lp)) ?? []);
    return file ? { kind: "file", rel: file } : null;
  }

  /** A path written as the tail of a longer one (`sub/Note` for `a/sub/Note.md`). */
  private tail(lp: string): Target | null {
    const k = key(lp);
    const noteKey = `/${k.replace(/\.md$/, "")}`;
    const notes = [...this.notePaths].filter(([p]) => p.endsWith(noteKey)).map(([, r]) => r);
    const note = pickShortest(notes);
    if (note) return { kind: "note", rel: note };
    const files = [...this.filePaths].filter(([p]) => p.endsWith(`/${k}`)).map(([, r]) => r);
    const file = pickShortest(files);
    return file ? { kind: "file", rel: file } : null;
  }

  /** The note or file a Markdown link URL names (decoded, relative to `from`, else the root). */
  markdown(url: string, from: string): Target | null {
    let path: string;
    try {
      path = decodeURIComponent(url);
    } catch {
      path = url;
    }
    path = path.normalize("NFC");
    if (path.startsWith("/")) return this.exact(posix.normalize(path.slice(1)));
    const joined = posix.normalize(posix.join(posix.dirname(from), path));
    if (joined.startsWith("../") || joined === "..") return null;
    const found = this.exact(joined);
    if (found) return found;
    // Obsidian also writes vault-root paths ("absolute path in vault").
    return path.startsWith("../") || path.startsWith("./")
      ? null
      : this.exact(posix.normalize(path));
  }
}
