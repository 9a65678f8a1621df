import { describe, expect, it } from "vitest";
import {
  extractLinks,
  extractSection,
  outline,
  rewriteLinks,
} from "../../../src/kb/core/markdown.js";

const body = [
  "# Title",
  "intro [[infra/rete/dns#Records|DNS]] and [gw](gateway.md#ip) and ![d](../diagram.png)",
  "```",
  "# not a heading [[fake]] [x](fake.md)",
  "```",
  "## Setup",
  "see [[services/db]] and [web](https://example.com) `[[inline]]`",
  "### Deep",
  "deep text",
  "## Other",
  "end",
].join("\n");

describe("markdown", () => {
  it("outlines headings outside fenced code", () => {
    expect(outline(body).map((h) => [h.level, h.text, h.line])).toEqual([
      [1, "Title", 1],
      [2, "Setup", 6],
      [3, "Deep", 8],
      [2, "Other", 10],
    ]);
  });

  it("extracts a section through the next heading of the same or higher level", () => {
    expect(extractSection(body, "setup")).toBe(
      "## Setup\nsee [[services/db]] and [web](https://example.com) `[[inline]]`\n### Deep\ndeep text",
    );
    expect(extractSection(body, "missing")).toBeNull();
  });

  it("extracts wiki, relative and asset links, ignoring code and URLs", () => {
    const links = extractLinks(body, "data/infra/rete/index.md");
    expect(links.map((l) => [l.kind, l.target, l.section ?? null, l.alias ?? null])).toEqual([
      ["wiki", "infra/rete/dns", "Records", "DNS"],
      ["markdown", "infra/rete/gateway", "ip", null],
      ["asset", "data/infra/diagram.png", null, null],
      ["wiki", "services/db", null, null],
    ]);
  });

  it("rewrites moved targets and recomputes relative links when the file moves", () => {
    const moves = new Map([
      ["infra/rete/dns", "net/dns"],
      ["infra/rete/gateway", "net/gw"],
    ]);
    const out = rewriteLinks(body, "data/infra/rete/index.md", moves, "data/net/index.md");
    expect(out).toContain("[[net/dns#Records|DNS]]");
    expect(out).toContain("[gw](gw.md#ip)");
    expect(out).toContain("![d](../infra/diagram.png)");
    expect(out).toContain("# not a heading [[fake]] [x](fake.md)");
    const links = extractLinks(out, "data/net/index.md");
    expect(links.map((l) => l.target)).toEqual([
      "net/dns",
      "net/gw",
      "data/infra/diagram.png",
      "services/db",
    ]);
  });
});
