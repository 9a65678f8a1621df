import { describe, expect, it } from "vitest";
import { matchPattern, segmentsOf } from "../../src/console/router.js";

describe("router", () => {
  it("matches literal, :param and *rest segments, a literal tail after *rest", () => {
    expect(matchPattern("/console/:kb", ["console", "a"])).toEqual({ kb: "a" });
    expect(matchPattern("/console/:kb/c/*id", ["console", "a", "c", "x", "y"])).toEqual({
      kb: "a",
      id: "x/y",
    });
    expect(
      matchPattern("/console/:kb/c/*id/history", ["console", "a", "c", "x", "history"]),
    ).toEqual({
      kb: "a",
      id: "x",
    });
    expect(matchPattern("/console/:kb/c/*id/history", ["console", "a", "c", "history"])).toBeNull();
    expect(matchPattern("/console/:kb/c/*id", ["console", "a", "c"])).toBeNull();
    expect(matchPattern("/", [])).toEqual({});
  });

  it("decodes each segment; an encoded slash, a NUL or a bad escape matches nothing", () => {
    expect(segmentsOf("/console/my%20kb/c/a")).toEqual(["console", "my kb", "c", "a"]);
    expect(segmentsOf("/console/a%2Fb")).toBeNull();
    expect(segmentsOf("/console/a%00")).toBeNull();
    expect(segmentsOf("/console/%E0%A4%A")).toBeNull();
  });
});
