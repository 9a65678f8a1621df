/** diffBlock (pure): every patch line escaped and classed by kind. */
import { describe, expect, it } from "vitest";
import { diffBlock, diffLineKind } from "../../../src/console/pages/commit-render.js";

describe("diffBlock", () => {
  it("classes each line and escapes its text", () => {
    const patch = [
      "diff --git a/data/x.md b/data/x.md",
      "--- a/data/x.md",
      "+++ b/data/x.md",
      "@@ -1 +1 @@",
      "-old <script>alert(1)</script>",
      "+new & improved",
      " context",
      "",
    ].join("\n");
    expect(diffBlock(patch).value).toBe(
      '<pre class="diff"><code>' +
        '<span class="d-file">diff --git a/data/x.md b/data/x.md</span>' +
        '<span class="d-file">--- a/data/x.md</span>' +
        '<span class="d-file">+++ b/data/x.md</span>' +
        '<span class="d-hunk">@@ -1 +1 @@</span>' +
        '<span class="d-del">-old &lt;script&gt;alert(1)&lt;/script&gt;</span>' +
        '<span class="d-add">+new &amp; improved</span>' +
        '<span class="d-ctx"> context</span>' +
        "</code></pre>",
    );
  });

  it("says when there is nothing to show", () => {
    expect(diffBlock("").value).toContain("No change to show.");
    expect(diffLineKind("Binary files a/x and b/x differ")).toBe("file");
  });
});
