/**
 * Concept Markdown → safe HTML (docs/console.md "Security"; docs/decisions.md "Console: Markdown
 * is rendered by markdown-it, then sanitized"). Agent-written text is untrusted, so two
 * well-kept libraries each stand on their own: markdown-it with raw HTML off (an HTML tag in
 * the text is text), then sanitize-html against an allow-list (no script, event handler,
 * `style`, frame, form, `<base>`/`<meta>`, and URLs only http/https/mailto or the console's own).
 *
 * Links are resolved by the KB's own rules (kb/core/markdown.ts: wiki links, relative `.md`
 * links, asset paths): a concept the viewer may see becomes a console link; one it may not see,
 * or that does not exist, becomes plain text (hidden ≡ missing). Images show only the KB's own
 * assets (served by the console); a remote image becomes a link, so reading a page never calls
 * out. Headings move one level down (the page's `<h1>` is the title). Parsing happens once: `prepareMarkdown` parses and lists the concept ids linked, the page
 * asks which of them the viewer sees, then `render` turns the same tokens into HTML.
 *
 * `renderShared` is the same rendering made once for every viewer (docs/decisions.md "Console:
 * the first render of a large concept"): each link to a listed concept becomes an anchor marked
 * with the class CONCEPT_LINK, whatever the viewer sees, and viewer-links.ts later turns the
 * marked anchors a viewer may not follow into the missing-link text this module would have
 * produced for that viewer.
 */

import type { Token } from "markdown-it";
import MarkdownIt from "markdown-it";
import sanitizeHtml from "sanitize-html";
import { resolveMarkdownTarget, wikiLinkAt } from "../../kb/core/markdown.js";
import { html, raw, type Safe } from "../html.js";
import { consoleUrl } from "../paths.js";

/** Most distinct concept ids a page resolves; links past them render as plain text. */
export const MAX_LINK_TARGETS = 1000;

export interface MarkdownPlace {
  kb: string;
  /** KB-root path of the concept's file (`data/a/b.md`): relative links resolve against it. */
  fromPath: string;
}

export interface PreparedMarkdown {
  /** Concept ids the text links to (wiki and relative `.md` links), distinct, first MAX_LINK_TARGETS. */
  readonly conceptTargets: readonly string[];
  /** The HTML; `visible(id)` says whether a linked concept is shown to the viewer. */
  render(visible: (id: string) => boolean): Safe;
}

/**
 * The class that marks a concept anchor of a shared rendering. Only this module's renderer
 * writes a class on an anchor (raw HTML is off), so text cannot produce it.
 */
export const CONCEPT_LINK = "concept-link";
/** How a link to a concept the viewer may not see (or that does not exist) opens. */
export const MISSING_LINK_OPEN = '<span class="missing-link">';

/** A rendering for every viewer: sanitized HTML with marked concept anchors (viewer-links.ts). */
export interface SharedRender {
  readonly html: string;
  /** The concept id of each marked anchor, in document order. */
  readonly anchors: readonly string[];
  /** Concept ids the text links to, as PreparedMarkdown.conceptTargets. */
  readonly targets: readonly string[];
}

interface Env {
  place: MarkdownPlace;
  /** Concept anchors are marked and kept for every viewer; their ids are listed in `anchors`. */
  shared: boolean;
  anchors: string[];
  visible: (id: string) => boolean;
  targets: ReadonlySet<string>;
  /** Whether each open link became an `<a>` (true) or a `<span>` (false), innermost last. */
  open: boolean[];
  /** Each link's target, classified once by prepareMarkdown (not again per rendering). */
  classified: ReadonlyMap<Token, Target>;
}

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

md.inline.ruler.before("link", "wikilink", (state, silent) => {
  if (state.src.charCodeAt(state.pos) !== 0x5b || state.src.charCodeAt(state.pos + 1) !== 0x5b)
    return false;
  const link = wikiLinkAt(state.src, state.pos);
  if (link === null) return false;
  if (!silent) {
    const token = state.push("wikilink", "", 0);
    token.meta = link;
  }
  state.pos += link.length;
  return true;
});

const EXTERNAL_SCHEME = /^(https?:|mailto:)/i;
const ANY_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

type Target =
  | { kind: "external"; href: string }
  | { kind: "anchor"; href: string }
  | { kind: "concept"; id: string; section?: string }
  | { kind: "asset"; path: string }
  | { kind: "none" };

function classify(href: string, fromPath: string): Target {
  const h = href.trim();
  if (EXTERNAL_SCHEME.test(h)) return { kind: "external", href: h };
  if (h.startsWith("#")) return { kind: "anchor", href: h };
  if (ANY_SCHEME.test(h) || h.startsWith("//") || h.startsWith("\\")) return { kind: "none" };
  const r = resolveMarkdownTarget(h, fromPath);
  if (r === null) return { kind: "none" };
  if (r.kind === "markdown")
    return { kind: "concept", id: r.target, ...(r.section ? { section: r.section } : {}) };
  return { kind: "asset", path: r.target };
}

function conceptHref(env: Env, id: string, section?: string): string | null {
  if (!env.targets.has(id)) return null;
  if (env.shared) env.anchors.push(id);
  else if (!env.visible(id)) return null;
  const url = consoleUrl.concept(env.place.kb, id);
  return section ? `${url}#${encodeURIComponent(section)}` : url;
}

const rules = md.renderer.rules;

rules.wikilink = (tokens, idx, _options, env: Env) => {
  const meta = (tokens[idx] as Token).meta as { target: string; section?: string; alias?: string };
  const text = meta.alias ?? meta.target;
  const href = conceptHref(env, meta.target, meta.section);
  return href === null
    ? html`<span class="missing-link">${text}</span>`.value
    : env.shared
      ? html`<a class="${CONCEPT_LINK} wikilink" href="${href}">${text}</a>`.value
      : html`<a class="wikilink" href="${href}">${text}</a>`.value;
};

rules.link_open = (tokens, idx, _options, env: Env) => {
  const token = tokens[idx] as Token;
  const target =
    env.classified.get(token) ?? classify(token.attrGet("href") ?? "", env.place.fromPath);
  const title = token.attrGet("title");
  let href: string | null = null;
  if (target.kind === "external" || target.kind === "anchor") href = target.href;
  else if (target.kind === "concept") href = conceptHref(env, target.id, target.section);
  else if (target.kind === "asset") href = consoleUrl.asset(env.place.kb, target.path);
  env.open.push(href !== null);
  if (href === null) return MISSING_LINK_OPEN;
  const mark = env.shared && target.kind === "concept" ? html` class="${CONCEPT_LINK}"` : null;
  return html`<a${mark} href="${href}"${title ? html` title="${title}"` : null}>`.value;
};

rules.link_close = (_tokens, _idx, _options, env: Env) => (env.open.pop() ? "</a>" : "</span>");

rules.image = (tokens, idx, options, env: Env) => {
  const token = tokens[idx] as Token;
  const alt = md.renderer.renderInlineAsText(token.children ?? [], options, env);
  const target = classify(token.attrGet("src") ?? "", env.place.fromPath);
  if (target.kind === "asset")
    return html`<img src="${consoleUrl.asset(env.place.kb, target.path)}" alt="${alt}">`.value;
  // A remote image is never fetched by the viewer's browser: it becomes a link to follow.
  if (target.kind === "external")
    return html`<a href="${target.href}">${alt || target.href}</a>`.value;
  return html`<span class="missing-link">${alt}</span>`.value;
};

const SANITIZE: sanitizeHtml.IOptions = {
  // sanitize-html looks a tag up in this list (indexOf) for every tag and text node: the tags
  // Markdown produces most often come first
  // (docs/decisions.md "Console: the first render of a large concept").
  allowedTags: [
    "td",
    "p",
    "li",
    "a",
    "code",
    "span",
    "em",
    "strong",
    "tr",
    "h3",
    "h2",
    "h4",
    "ul",
    "ol",
    "th",
    "thead",
    "tbody",
    "table",
    "pre",
    "blockquote",
    "h5",
    "h6",
    "h1",
    "s",
    "del",
    "hr",
    "br",
    "img",
  ],

  allowedAttributes: {
    a: ["href", "title", "class", "rel"],
    img: ["src", "alt"],
    span: ["class"],
    code: ["class"],
    ol: ["start"],
  },
  allowedClasses: {
    a: ["wikilink", CONCEPT_LINK],
    span: ["missing-link"],
    code: [/^language-[\w-]+$/],
  },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesByTag: { img: [] },
  allowedSchemesAppliedToAttributes: ["href", "src"],
  allowProtocolRelative: false,
  disallowedTagsMode: "discard",
  // Only the console's own asset URLs may be an image source (same origin, nothing remote).
  exclusiveFilter: (frame) =>
    frame.tag === "img" && !(frame.attribs.src ?? "").startsWith("/console/"),
  transformTags: {
    a: (tagName, attribs) => ({
      tagName,
      attribs: { ...attribs, rel: "nofollow noopener noreferrer" },
    }),
  },
};

interface Parsed {
  tokens: Token[];
  targets: string[];
  seen: ReadonlySet<string>;
  classified: ReadonlyMap<Token, Target>;
}

function parse(text: string, place: MarkdownPlace): Parsed {
  const tokens = md.parse(text, {});
  // The page's own <h1> is the concept's title: the body's headings sit one level below it.
  for (const t of tokens)
    if (t.type === "heading_open" || t.type === "heading_close")
      t.tag = `h${Math.min(6, Number(t.tag.slice(1)) + 1)}`;
  const targets: string[] = [];
  const seen = new Set<string>();
  const classified = new Map<Token, Target>();
  const add = (id: string) => {
    if (seen.has(id) || targets.length >= MAX_LINK_TARGETS) return;
    seen.add(id);
    targets.push(id);
  };
  for (const block of tokens) {
    for (const t of block.children ?? []) {
      if (t.type === "wikilink") add((t.meta as { target: string }).target);
      else if (t.type === "link_open") {
        const target = classify(t.attrGet("href") ?? "", place.fromPath);
        classified.set(t, target);
        if (target.kind === "concept") add(target.id);
      }
    }
  }
  return { tokens, targets, seen, classified };
}

function renderTokens(p: Parsed, place: MarkdownPlace, env: Partial<Env>): string {
  const full: Env = {
    place,
    shared: false,
    anchors: [],
    visible: () => false,
    targets: p.seen,
    open: [],
    classified: p.classified,
    ...env,
  };
  return sanitizeHtml(md.renderer.render(p.tokens, md.options, full), SANITIZE);
}

export function prepareMarkdown(text: string, place: MarkdownPlace): PreparedMarkdown {
  const parsed = parse(text, place);
  return {
    conceptTargets: parsed.targets,
    render: (visible) => raw(renderTokens(parsed, place, { visible })),
  };
}

/** The rendering of `text` shared by every viewer (viewer-links.ts links it for one). */
export function renderShared(text: string, place: MarkdownPlace): SharedRender {
  const parsed = parse(text, place);
  const anchors: string[] = [];
  const out = renderTokens(parsed, place, { shared: true, anchors });
  return { html: out, anchors, targets: parsed.targets };
}

/** Renders `text` in one step (ids in `visible` are linked; everything else plain text). */
export function renderMarkdown(
  text: string,
  place: MarkdownPlace,
  visible: (id: string) => boolean,
): Safe {
  return prepareMarkdown(text, place).render(visible);
}
