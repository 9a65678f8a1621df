import { describe, expect, it } from "vitest";
import { columns, fitWidth, lineWidth, oneLine } from "../../src/cli/columns.js";

describe("terminal columns", () => {
  it("pads every column but the last to its widest cell", () => {
    expect(
      columns(
        [
          ["a", "bb", "x y"],
          ["ccc", "d", "z"],
        ],
        null,
      ),
    ).toBe("a    bb  x y\nccc  d   z\n");
  });

  it("cuts lines to the width with an ellipsis, counting code points", () => {
    expect(fitWidth("héllo wörld", 6)).toBe("héllo…");
    expect(fitWidth("short", 6)).toBe("short");
    expect(fitWidth("anything", null)).toBe("anything");
  });

  it("a width only for a TTY; text flattened to one line", () => {
    expect(lineWidth({ isTTY: true, columns: 80 })).toBe(80);
    expect(lineWidth({ columns: 80 })).toBeNull();
    expect(oneLine(" a\n\n b\tc ")).toBe("a b c");
  });
});
