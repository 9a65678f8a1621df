/**
 * The renderer on a corpus of XSS payloads (test/fixtures/console/xss-corpus.md, also rendered
 * in a real browser by test/console/browser/xss.test.ts): no tag, attribute or URL that could run
 * script, load something remote or restyle the page survives; links resolve by the KB's rules
 * and a concept the viewer cannot see is plain text.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { prepareMarkdown, renderMarkdown } from "../../../src/console/render/markdown.js";
import { parseDocument } from "../../../src/kb/core/frontmatter.js";

const PLACE = { kb: "kb", fromPath: "data/public/page.md" };
const seesPublic = (id: string) => id.startsWith("public/");
const render = (text: string) => renderMarkdown(text, PLACE, seesPublic).value;

const CORPUS = parseDocument(
  readFileSync(new URL("../../fixtures/console/xss-corpus.md", import.meta.url), "utf8"),
).body;

/** Every start tag of the output, with its attributes. */
function tags(out: string): { name: string; attrs: Record<string, string> }[] {
  const found: { name: string; attrs: Record<string, string> }[] = [];
  for (const m of out.matchAll(/<([a-zA-Z][\w-]*)([^>]*)>/g)) {
    const attrs: Record<string, string> = {};
    for (const a of (m[2] as string).matchAll(/([\w:-]+)(?:="([^"]*)")?/g))
      attrs[(a[1] as string).toLowerCase()] = a[2] ?? "";
    found.push({ name: (m[1] as string).toLowerCase(), attrs });
  }
  return found;
}

const ALLOWED_TAGS = new Set([
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "p",
  "a",
  "ul",
  "ol",
  "li",
  "blockquote",
  "code",
  "pre",
  "em",
  "strong",
  "s",
  "del",
  "hr",
  "br",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "img",
  "span",
]);

describe("renderMarkdown on the XSS corpus", () => {
  const out = render(CORPUS);

  it("emits only allow-listed tags and no event handler or style attribute", () => {
    for (const t of tags(out)) {
      expect(ALLOWED_TAGS.has(t.name), `tag <${t.name}>`).toBe(true);
      for (const name of Object.keys(t.attrs)) {
        expect(name.startsWith("on"), `attribute ${name} on <${t.name}>`).toBe(false);
        expect(["style", "srcdoc", "formaction", "action"]).not.toContain(name);
      }
    }
  });

  it("every href is http(s), mailto, an anchor or a console URL; every src a console asset", () => {
    for (const t of tags(out)) {
      if (t.attrs.href !== undefined)
        expect(t.attrs.href).toMatch(/^(https?:\/\/|mailto:|#|\/console\/)/);
      if (t.attrs.src !== undefined) expect(t.attrs.src).toMatch(/^\/console\/kb\/asset\//);
    }
  });

  it("no script-capable or remote-loading element survives as markup", () => {
    for (const name of [
      "script",
      "iframe",
      "svg",
      "style",
      "base",
      "meta",
      "form",
      "object",
      "embed",
      "math",
      "details",
      "input",
    ])
      expect(out).not.toMatch(new RegExp(`<${name}[\\s>/]`, "i"));
    expect(out).not.toMatch(/<img[^>]+src="https?:/);
    expect(out).toContain('href="https://example.org/"');
  });

  it("a remote image becomes a link; a quoted link title stays inside its attribute", () => {
    expect(out).toContain(
      '<a href="https://evil.example/pixel.png" rel="nofollow noopener noreferrer">remote image</a>',
    );
    expect(out).toContain('title="a&quot; onmouseover=&quot;window.__xss=1"');
  });
});

describe("links", () => {
  it("wiki links with aliases, relative .md links and assets resolve to console URLs", () => {
    const text =
      "[[public/a|Alias]] [[public/b#Part]] [r](b.md) ![i](img/x.png) [up](../other/c.md)";
    const out = render(text);
    expect(out).toContain(
      '<a class="wikilink" href="/console/kb/c/public/a" rel="nofollow noopener noreferrer">Alias</a>',
    );
    expect(out).toContain('href="/console/kb/c/public/b#Part"');
    expect(out).toContain('<a href="/console/kb/c/public/b"');
    expect(out).toContain('<img src="/console/kb/asset/data/public/img/x.png" alt="i"');
    expect(out).toContain('<span class="missing-link">up</span>');
  });

  it("lists the concept ids linked, once each, for the visibility lookup", () => {
    const p = prepareMarkdown(
      "[[public/a]] [[public/a]] [x](b.md) [y](https://e.org) `[[no]]`",
      PLACE,
    );
    expect(p.conceptTargets).toEqual(["public/a", "public/b"]);
  });

  it("a link to a hidden concept and to a missing one render the same bytes", () => {
    const hidden = renderMarkdown("see [[secret/x|the plan]]", PLACE, () => false).value;
    const missing = renderMarkdown("see [[secret/x|the plan]]", PLACE, () => false).value;
    expect(hidden).toBe(missing);
    expect(hidden).toContain('<span class="missing-link">the plan</span>');
  });

  it("raw HTML is text, markdown structure renders, headings one level below the page's h1", () => {
    expect(render("# T\n\n<b>x</b> *em*\n\n| a |\n|---|\n| 1 |")).toBe(
      "<h2>T</h2>\n<p>&lt;b&gt;x&lt;/b&gt; <em>em</em></p>\n<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n</tr>\n</tbody>\n</table>\n",
    );
  });
});
