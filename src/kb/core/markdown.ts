/**
 * Markdown structure: heading outline, sections, links. Pure (node:path/posix is string math).
 * Fenced code blocks are never headings and never links.
 */
import { posix } from "node:path";
import { candidatePaths, pathToId } from "./ids.js";

export interface Heading {
  level: number;
  text: string;
  /** 1-based line number within the body. */
  line: number;
}

export interface LinkRef {
  kind: "wiki" | "markdown" | "asset";
  /** Concept id for wiki/markdown links; KB-root-relative path for assets. */
  target: string;
  section?: string;
  alias?: string;
  raw: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;

/** For each line, whether it is inside (or delimits) a fenced code block. */
function fencedLines(lines: string[]): boolean[] {
  const result: boolean[] = [];
  let open: string | null = null;
  for (const line of lines) {
    const m = FENCE.exec(line);
    if (open === null) {
      if (m) {
        open = m[1] as string;
        result.push(true);
      } else result.push(false);
    } else {
      result.push(true);
      if (
        m &&
        (m[1] as string)[0] === open[0] &&
        (m[1] as string).length >= open.length &&
        line.trim() === m[1]
      ) {
        open = null;
      }
    }
  }
  return result;
}

/** ATX headings outside fenced code. */
export function outline(body: string): Heading[] {
  const lines = body.replace(/\r\n?/g, "\n").split("\n");
  const fenced = fencedLines(lines);
  const headings: Heading[] = [];
  lines.forEach((line, i) => {
    if (fenced[i]) return;
    const m = HEADING.exec(line);
    if (!m) return;
    const text = (m[2] ?? "")
      .replace(/[ \t]+#+$/, "")
      .replace(/^#+$/, "")
      .trim();
    headings.push({ level: (m[1] as string).length, text, line: i + 1 });
  });
  return headings;
}

/**
 * The section under `heading` (case-insensitive; leading `#`s in the query are ignored), from
 * its heading line through the line before the next heading of the same or higher level.
 */
export function extractSection(body: string, heading: string): string | null {
  const wanted = heading
    .replace(/^#+\s*/, "")
    .trim()
    .toLowerCase();
  const lines = body.replace(/\r\n?/g, "\n").split("\n");
  const hs = outline(body);
  const idx = hs.findIndex((h) => h.text.toLowerCase() === wanted);
  if (idx < 0) return null;
  const start = hs[idx] as Heading;
  const end = hs.slice(idx + 1).find((h) => h.level <= start.level);
  const slice = lines.slice(start.line - 1, end ? end.line - 1 : lines.length);
  return slice.join("\n").replace(/\n+$/, "");
}

const WIKI = /\[\[([^\]|#\n]+)(?:#([^\]|\n]*))?(?:\|([^\]\n]*))?\]\]/g;
const MD_LINK = /(!?)\[([^\]\n]*)\]\(([^)\s]+)((?:[ \t]+"[^"\n]*")?)\)/g;
const EXTERNAL = /^([a-z][a-z0-9+.-]*:|\/\/|#)/i;
const WIKI_AT = new RegExp(WIKI.source, "y");

/** The wiki link `[[id#section|alias]]` starting exactly at `pos` of `text`, or null (renderers). */
export function wikiLinkAt(
  text: string,
  pos: number,
): { target: string; section?: string; alias?: string; length: number } | null {
  WIKI_AT.lastIndex = pos;
  const m = WIKI_AT.exec(text);
  if (m === null) return null;
  const target = (m[1] as string).trim().replace(/\.md$/, "");
  if (!target) return null;
  return {
    target,
    length: m[0].length,
    ...(m[2]?.trim() ? { section: m[2].trim() } : {}),
    ...(m[3]?.trim() ? { alias: m[3].trim() } : {}),
  };
}

/** Masks inline code spans so links inside them are not seen (same length keeps offsets). */
function maskInlineCode(line: string): string {
  return line.replace(/`+[^`]*`+/g, (m) => " ".repeat(m.length));
}

export interface ResolvedLink {
  kind: "markdown" | "asset";
  target: string;
  section?: string;
  /** The resolved KB-root-relative file path. */
  file: string;
}

/**
 * What a Markdown link's URL in the file at `fromPath` points to: a concept id (`.md`), or an
 * asset's KB-root path; null for an external URL, an anchor, or a path leaving the KB.
 */
export function resolveMarkdownTarget(url: string, fromPath: string): ResolvedLink | null {
  if (EXTERNAL.test(url)) return null;
  const hash = url.indexOf("#");
  const pathPart = hash >= 0 ? url.slice(0, hash) : url;
  const section = hash >= 0 ? url.slice(hash + 1) : undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathPart);
  } catch {
    decoded = pathPart;
  }
  const file = decoded.startsWith("/")
    ? posix.normalize(decoded.slice(1))
    : posix.normalize(posix.join(posix.dirname(fromPath), decoded));
  if (file.startsWith("..") || file === ".") return null;
  if (file.endsWith(".md")) {
    const id = pathToId(file);
    if (id === null) return null;
    return { kind: "markdown", target: id, file, ...(section ? { section } : {}) };
  }
  return { kind: "asset", target: file, file };
}

function forEachLine(
  body: string,
  fn: (line: string, masked: string) => string | undefined,
): string {
  const lines = body.split("\n");
  const fenced = fencedLines(lines);
  return lines
    .map((line, i) => (fenced[i] ? line : (fn(line, maskInlineCode(line)) ?? line)))
    .join("\n");
}

/** Wiki links, relative Markdown links (to concept ids) and asset links, in order of appearance. */
export function extractLinks(body: string, fromPath: string): LinkRef[] {
  const links: LinkRef[] = [];
  forEachLine(body.replace(/\r\n?/g, "\n"), (_line, masked) => {
    const found: Array<{ at: number; ref: LinkRef }> = [];
    for (const m of masked.matchAll(WIKI)) {
      const target = (m[1] as string).trim().replace(/\.md$/, "");
      if (!target) continue;
      const ref: LinkRef = { kind: "wiki", target, raw: m[0] };
      if (m[2]?.trim()) ref.section = m[2].trim();
      if (m[3]?.trim()) ref.alias = m[3].trim();
      found.push({ at: m.index ?? 0, ref });
    }
    for (const m of masked.matchAll(MD_LINK)) {
      const r = resolveMarkdownTarget(m[3] as string, fromPath);
      if (!r) continue;
      const ref: LinkRef = { kind: r.kind, target: r.target, raw: m[0] };
      if (r.section) ref.section = r.section;
      found.push({ at: m.index ?? 0, ref });
    }
    found.sort((a, b) => a.at - b.at);
    links.push(...found.map((f) => f.ref));
    return undefined;
  });
  return links;
}

function relativeUrl(fromFile: string, toFile: string): string {
  const rel = posix.relative(posix.dirname(fromFile), toFile);
  return rel.split("/").map(encodeURIComponent).join("/");
}

/**
 * Rewrites links after concept moves (`moves`: old id → new id). Wiki links keep section and
 * alias; relative links keep their `<id>.md` / `<id>/index.md` form and are recomputed from
 * `newFromPath` when the containing file moves too. `movedFiles` (old → new KB-root-relative
 * path) redirects asset links to files that moved along with an expanded concept.
 */
export function rewriteLinks(
  body: string,
  fromPath: string,
  moves: Map<string, string>,
  newFromPath?: string,
  movedFiles?: Map<string, string>,
): string {
  const dest = newFromPath ?? fromPath;
  return forEachLine(body.replace(/\r\n?/g, "\n"), (line, masked) => {
    const edits: Array<{ at: number; len: number; text: string }> = [];
    for (const m of masked.matchAll(WIKI)) {
      const id = (m[1] as string).trim().replace(/\.md$/, "");
      const to = moves.get(id);
      if (to === undefined) continue;
      const section = m[2] !== undefined ? `#${m[2]}` : "";
      const alias = m[3] !== undefined ? `|${m[3]}` : "";
      edits.push({ at: m.index ?? 0, len: m[0].length, text: `[[${to}${section}${alias}]]` });
    }
    for (const m of masked.matchAll(MD_LINK)) {
      const url = m[3] as string;
      const r = resolveMarkdownTarget(url, fromPath);
      if (!r) continue;
      let file = r.file;
      if (r.kind === "markdown") {
        const to = moves.get(r.target);
        if (to !== undefined) {
          const [flat, expanded] = candidatePaths(to);
          file = r.file.endsWith("/index.md") ? expanded : flat;
        }
      } else file = movedFiles?.get(r.file) ?? file;
      if (file === r.file && dest === fromPath) continue;
      const hash = url.indexOf("#");
      const fragment = hash >= 0 ? url.slice(hash) : "";
      const newUrl = url.startsWith("/")
        ? `/${file}${fragment}`
        : `${relativeUrl(dest, file)}${fragment}`;
      if (newUrl === url) continue;
      edits.push({
        at: m.index ?? 0,
        len: m[0].length,
        text: `${m[1]}[${m[2]}](${newUrl}${m[4]})`,
      });
    }
    if (edits.length === 0) return undefined;
    edits.sort((a, b) => b.at - a.at);
    let out = line;
    for (const e of edits) out = out.slice(0, e.at) + e.text + out.slice(e.at + e.len);
    return out;
  });
}
