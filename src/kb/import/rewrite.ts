/**
 * Rewrites a note's links to the KB's (docs/import.md "Links"): `[[Note]]`, `[[Note|alias]]`,
 * `[[Note#Heading]]` and `![[Note]]` become wiki links to the new id (the name as written kept
 * as the alias, so the text reads the same); links and embeds of attachments become Markdown
 * links to the copied asset; relative Markdown links are recomputed from the note's new place.
 * Code is never touched. Pure.
 */
import { posix } from "node:path";
import { mapProseLines } from "./prose-lines.js";
import type { SourceIndex, Target } from "./resolve.js";

export interface LinkContext {
  /** Source-relative path of the note being rewritten. */
  from: string;
  /** KB-root-relative path its body is written at. */
  fromPath: string;
  index: SourceIndex;
  /** Where a source note lands, or null when it is not imported. */
  note(rel: string): { id: string; path: string } | null;
  /** The KB path of an attachment this note references (copied as an asset), or null. */
  asset(rel: string): string | null;
}

export interface Rewritten {
  body: string;
  /** Links as written that named nothing importable. */
  unresolved: string[];
}

const WIKI = /(!?)\[\[([^[\]\n]+?)\]\]/g;
const MD_LINK = /(!?)\[([^\]\n]*)\]\((<[^>\n]+>|[^)\s]+)((?:[ \t]+"[^"\n]*")?)\)/g;
const EXTERNAL = /^([a-z][a-z0-9+.-]*:|\/\/|#)/i;
/** Obsidian's image size suffix (`![[a.png|300]]`, `|300x200`): not a caption. */
const SIZE = /^\d+(x\d+)?$/;

function relativeUrl(fromFile: string, toFile: string): string {
  const rel = posix.relative(posix.dirname(fromFile), toFile);
  return rel.split("/").map(encodeURIComponent).join("/");
}

interface Edit {
  at: number;
  len: number;
  text: string;
}

function wikiEdit(m: RegExpMatchArray, ctx: LinkContext, unresolved: string[]): Edit | null {
  const [raw, bang, inner] = m as unknown as [string, string, string];
  // In a table Obsidian escapes the alias pipe: keep the escape in what is written back.
  const pipe = inner.includes("\\|") ? "\\|" : "|";
  const cut = inner.indexOf(pipe);
  const linkpart = cut < 0 ? inner : inner.slice(0, cut);
  const alias = cut < 0 ? undefined : inner.slice(cut + pipe.length);
  const hash = linkpart.indexOf("#");
  const name = (hash < 0 ? linkpart : linkpart.slice(0, hash)).trim();
  const heading = hash < 0 ? "" : linkpart.slice(hash);
  if (name === "") return null; // [[#Heading]] points into the note itself
  const target = ctx.index.wiki(name, ctx.from);
  const text = target ? wikiText(target, { bang, name, heading, alias, pipe }, ctx) : null;
  if (text === null) {
    unresolved.push(raw);
    return null;
  }
  return { at: m.index ?? 0, len: raw.length, text };
}

function wikiText(
  target: Target,
  link: { bang: string; name: string; heading: string; alias?: string; pipe: string },
  ctx: LinkContext,
): string | null {
  if (target.kind === "note") {
    const dest = ctx.note(target.rel);
    if (!dest) return null;
    const shown = link.alias ?? (link.bang || link.name === dest.id ? undefined : link.name);
    return `${link.bang}[[${dest.id}${link.heading}${shown === undefined ? "" : `${link.pipe}${shown}`}]]`;
  }
  const asset = ctx.asset(target.rel);
  if (!asset) return null;
  const caption =
    link.alias !== undefined && !SIZE.test(link.alias.trim())
      ? link.alias
      : posix.basename(target.rel);
  return `${link.bang}[${caption.replace(/[[\]]/g, "")}](${relativeUrl(ctx.fromPath, asset)})`;
}

function markdownEdit(m: RegExpMatchArray, ctx: LinkContext, unresolved: string[]): Edit | null {
  const [raw, bang, text, rawUrl, title] = m as unknown as [string, string, string, string, string];
  const url = rawUrl.startsWith("<") ? rawUrl.slice(1, -1) : rawUrl;
  if (EXTERNAL.test(url)) return null;
  const hash = url.indexOf("#");
  const path = hash < 0 ? url : url.slice(0, hash);
  const fragment = hash < 0 ? "" : url.slice(hash);
  const target = ctx.index.markdown(path, ctx.from);
  let to: string | null = null;
  if (target?.kind === "note") to = ctx.note(target.rel)?.path ?? null;
  else if (target?.kind === "file") to = ctx.asset(target.rel);
  if (to === null) {
    unresolved.push(raw);
    return null;
  }
  const newUrl = `${relativeUrl(ctx.fromPath, to)}${fragment}`;
  return { at: m.index ?? 0, len: raw.length, text: `${bang}[${text}](${newUrl}${title})` };
}

/** The body with every resolvable link rewritten; the rest reported in `unresolved`. */
export function rewriteNoteLinks(body: string, ctx: LinkContext): Rewritten {
  const unresolved: string[] = [];
  const out = mapProseLines(body, (line, masked) => {
    const edits: Edit[] = [];
    for (const m of masked.matchAll(WIKI)) {
      const e = wikiEdit(m, ctx, unresolved);
      if (e) edits.push(e);
    }
    const wikiSpans = [...masked.matchAll(WIKI)].map((m) => [
      m.index ?? 0,
      (m.index ?? 0) + m[0].length,
    ]);
    for (const m of masked.matchAll(MD_LINK)) {
      const at = m.index ?? 0;
      if (wikiSpans.some(([s, e]) => at >= (s as number) && at < (e as number))) continue;
      const e = markdownEdit(m, ctx, unresolved);
      if (e) edits.push(e);
    }
    if (edits.length === 0) return undefined;
    edits.sort((a, b) => b.at - a.at);
    let text = line;
    for (const e of edits) text = text.slice(0, e.at) + e.text + text.slice(e.at + e.len);
    return text;
  });
  return { body: out, unresolved };
}
