import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  expandPlaceholders,
  localPathsTable,
  placeholdersIn,
  unwritablePath,
} from "../../../src/client/repos/placeholders.js";

describe("placeholders in instructions text", () => {
  it("finds repo: and path: placeholders once each, in order", () => {
    const text = "Code in {{repo:tool}}, assets in {{path:assets}}; again {{repo:tool}}.";
    expect(placeholdersIn(text)).toEqual([
      { text: "{{repo:tool}}", kind: "repo", ref: "tool" },
      { text: "{{path:assets}}", kind: "path", ref: "assets" },
    ]);
  });

  it("ignores other double-brace text and placeholders split across lines", () => {
    expect(placeholdersIn("{{name}} {{secret:x}} {{repo:}} {{repo:a\nb}} {{ repo:x }}")).toEqual(
      [],
    );
  });

  it("expands the resolved ones and leaves the others as written", () => {
    const text = "A {{repo:tool}} B {{path:gone}} C {{repo:tool}}";
    const out = expandPlaceholders(text, new Map([["repo:tool", "/home/u/src/tool"]]));
    expect(out).toBe("A /home/u/src/tool B {{path:gone}} C /home/u/src/tool");
  });

  it("property: text without a resolved placeholder comes back byte for byte", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        expect(expandPlaceholders(text, new Map())).toBe(text);
        expect(expandPlaceholders(text.replace(/\{\{/g, "{"), new Map([["repo:x", "/y"]]))).toBe(
          text.replace(/\{\{/g, "{"),
        );
      }),
    );
  });

  it("the Local paths table: sorted rows, a pointer to cartographer resolve; none when empty", () => {
    const table = localPathsTable(
      new Map([
        ["repo:tool", "/src/tool"],
        ["path:assets", "/data/a|b"],
      ]),
    );
    expect(table).toBe(
      [
        "### Local paths",
        "",
        "| Placeholder | Local path |",
        "|---|---|",
        "| `{{path:assets}}` | `/data/a\\|b` |",
        "| `{{repo:tool}}` | `/src/tool` |",
        "",
        "A `{{repo:…}}` or `{{path:…}}` placeholder missing from this table (in a concept, say): run `cartographer resolve <kind>:<key>` (e.g. `cartographer resolve repo:name`) for its local path.",
      ].join("\n"),
    );
    expect(localPathsTable(new Map())).toBe("");
  });

  it("a path with a backtick or a control/bidi character cannot be written", () => {
    expect(unwritablePath("/src/a`b")).toMatch(/backtick/);
    expect(unwritablePath("/src/a\u202eb")).toMatch(/control or bidi/);
    expect(unwritablePath("/src/a\nb")).toMatch(/control/);
    expect(unwritablePath("/src/ok dir")).toBeUndefined();
  });
});
