import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderToolsDoc, TOOLS_DOC_PATH } from "../../scripts/tools-doc.js";

describe("docs/tools.md", () => {
  it("matches the registry (run `npm run docs:tools` after changing a tool)", () => {
    expect(readFileSync(TOOLS_DOC_PATH, "utf8")).toBe(renderToolsDoc());
  });
});
