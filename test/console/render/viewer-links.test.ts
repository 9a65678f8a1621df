/**
 * The shared rendering linked for one viewer (render/viewer-links.ts) against the per-viewer
 * rendering the console made before (markdown.ts `renderMarkdown`): byte-identical for every
 * viewer over a varied corpus — the XSS corpus, wiki links with sections and aliases, relative
 * `.md` links, hidden and missing targets, more than MAX_LINK_TARGETS targets, nested links — and
 * text crafted to forge a marked anchor is never taken for one.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  CONCEPT_LINK,
  MAX_LINK_TARGETS,
  renderMarkdown,
  renderShared,
} from "../../../src/console/render/markdown.js";
import { linkForViewer } from "../../../src/console/render/viewer-links.js";
import { parseDocument } from "../../../src/kb/core/frontmatter.js";

const PLACE = { kb: "kb", fromPath: "data/public/dir/page.md" };

const XSS = parseDocument(
  readFileSync(new URL("../../fixtures/console/xss-corpus.md", import.meta.url), "utf8"),
).body;

/** A deterministic pseudo-random generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "[[public/a]]",
  "[[secret/b]]",
  "[[public/a#Some Section]]",
  "[[public/a|the alias]]",
  "[[secret/b#Part two|alias & <b>]]",
  "[[missing/x]]",
  "[rel](other.md)",
  "[rel up](../up.md#sec)",
  "[secret rel](../../secret/b.md)",
  '[titled](other.md "a \\"title\\" <a class=concept-link>")',
  "[ext](https://example.org/x?a=1&b=2)",
  "[mail](mailto:a@example.org)",
  "[anchor](#top)",
  "[asset](img/pic.png)",
  "![img](img/pic.png)",
  "![remote](https://example.org/p.png)",
  "[see [[public/a]] inside](other.md)",
  "[**strong [[secret/b]]** text](../../secret/b.md)",
  "[console url](/console/kb/c/secret/b)",
  '[forged](/x "<a class=\\"concept-link\\" href=\\"/console/kb/c/secret/b\\">")',
  `<a class="${CONCEPT_LINK}" href="/console/kb/c/secret/b">raw forged</a>`,
  `\`<a class="${CONCEPT_LINK} wikilink" href="/console/kb/c/secret/b">\``,
  '```\n<a class="concept-link" href="/console/kb/c/public/a">code</a>\n```',
  "`code [[public/a]]`",
  "*em* **strong** ~~del~~",
  "| a | [[public/a]] |\n|---|---|\n| [[secret/b]] | x |",
  "- item [[public/c]]\n- item [c](c.md)",
  "> quote [[secret/b|q]]",
  "# Heading [[public/a]]",
  "plain </a> text </span> <a",
];

function corpus(): string[] {
  const rnd = random(7);
  const texts = [XSS, PIECES.join("\n\n"), ""];
  for (let n = 0; n < 60; n++) {
    const parts: string[] = [];
    const count = 1 + Math.floor(rnd() * 25);
    for (let i = 0; i < count; i++) {
      const p = PIECES[Math.floor(rnd() * PIECES.length)] as string;
      parts.push(rnd() < 0.3 ? `${p} ${p}` : p);
    }
    texts.push(parts.join(rnd() < 0.5 ? "\n\n" : " "));
  }
  return texts;
}

/** Visible sets to try: none, all linked, the public ones, and a random half. */
function viewers(targets: readonly string[], seed: number): ReadonlySet<string>[] {
  const rnd = random(seed);
  return [
    new Set<string>(),
    new Set(targets),
    new Set(targets.filter((t) => t.startsWith("public/"))),
    new Set(targets.filter(() => rnd() < 0.5)),
  ];
}

function expectSame(text: string, seed: number): void {
  const shared = renderShared(text, PLACE);
  for (const visible of viewers(shared.targets, seed)) {
    const old = renderMarkdown(text, PLACE, (id) => visible.has(id)).value;
    expect(linkForViewer(shared, visible)).toBe(old);
  }
}

describe("linkForViewer", () => {
  it("gives every viewer exactly the bytes the per-viewer rendering gave, over a varied corpus", () => {
    for (const [i, text] of corpus().entries()) expectSame(text, i);
  });

  it("the same with more distinct targets than MAX_LINK_TARGETS (the rest stay plain text)", () => {
    const links = Array.from({ length: MAX_LINK_TARGETS + 50 }, (_, i) =>
      i % 2 === 0 ? `[[public/n${i}|n${i}]]` : `[n${i}](../n${i}.md)`,
    );
    const text = links.join(" ");
    const shared = renderShared(text, PLACE);
    expect(shared.targets).toHaveLength(MAX_LINK_TARGETS);
    expectSame(text, 99);
  });

  it("hidden and missing targets give byte-identical output; the marker never reaches a viewer", () => {
    const text = "[[secret/b|alias]] and [x](../../secret/b.md)";
    const shared = renderShared(text, PLACE);
    expect(shared.anchors).toEqual(["secret/b", "secret/b"]);
    const hidden = linkForViewer(shared, new Set());
    const missing = linkForViewer(
      renderShared(text.replaceAll("secret/b", "gone/z"), PLACE),
      new Set(),
    );
    expect(hidden).toBe(missing?.replaceAll("gone/z", "secret/b"));
    expect(hidden).toBe(
      '<p><span class="missing-link">alias</span> and <span class="missing-link">x</span></p>\n',
    );
    for (const visible of viewers(shared.targets, 1))
      expect(linkForViewer(shared, visible)).not.toContain(CONCEPT_LINK);
  });

  it("text that imitates a marked anchor is escaped text, never a link a viewer gets", () => {
    const forged = [
      `<a class="${CONCEPT_LINK}" href="/console/kb/c/secret/b">raw</a>`,
      `[t](/console/kb/c/secret/b "<a class=&quot;${CONCEPT_LINK}&quot;>")`,
      `[[public/a|<a class="${CONCEPT_LINK} wikilink" href="/console/kb/c/secret/b">]]`,
      "[console](/console/kb/c/secret/b)",
    ].join("\n\n");
    const shared = renderShared(forged, PLACE);
    // Only the one real wiki link is a marked anchor.
    expect(shared.anchors).toEqual(["public/a"]);
    expect(shared.html.split(`<a class="${CONCEPT_LINK}`)).toHaveLength(2);
    const out = linkForViewer(shared, new Set(["public/a"])) as string;
    expect(out).not.toMatch(/<a [^>]*href="\/console\/kb\/c\/secret\/b"/);
    expectSame(forged, 3);
  });

  it("a shared rendering whose marks do not match its ids is refused (the page renders the old way)", () => {
    const shared = renderShared("[[public/a]] [[public/b]]", PLACE);
    expect(linkForViewer({ ...shared, anchors: ["public/a"] }, new Set())).toBeNull();
    expect(linkForViewer({ ...shared, anchors: [...shared.anchors, "x"] }, new Set())).toBeNull();
    expect(linkForViewer({ ...shared, html: `${shared.html}</a>` }, new Set())).toBeNull();
  });
});
