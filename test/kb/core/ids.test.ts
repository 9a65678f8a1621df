import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isKbError } from "../../../src/common/errors.js";
import { candidatePaths, pathToId, placementOf, validateId } from "../../../src/kb/core/ids.js";
import { parseMapDescriptor } from "../../../src/kb/core/maps.js";

const segment = fc
  .stringMatching(/^[a-z0-9][a-z0-9._-]{0,10}$/)
  .filter(
    (s) => !["index", "log", "_map", "_archive", "agents"].includes(s) && s !== "." && s !== "..",
  );

function code(fn: () => void): string | null {
  try {
    fn();
    return null;
  } catch (e) {
    return isKbError(e) ? e.code : "other";
  }
}

describe("ids", () => {
  it("valid ids round-trip through both candidate paths", () => {
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 3 }), (segs) => {
        const id = segs.join("/");
        if (id.startsWith("services")) return;
        validateId(id, { forWrite: true });
        const [flat, expanded] = candidatePaths(id);
        expect(flat).toBe(`data/${id}.md`);
        expect(pathToId(flat)).toBe(id);
        expect(pathToId(expanded)).toBe(id);
      }),
    );
  });

  it("any segment with a forbidden character is invalid_id naming that segment", () => {
    fc.assert(
      fc.property(segment, fc.constantFrom("A", " ", "/", "é", "$", ":"), (good, ch) => {
        const bad = `${good}${ch}x`;
        const id = `ok/${bad}`;
        try {
          validateId(id);
          expect(ch).toBe("/"); // only a slash makes a (valid) deeper id
        } catch (e) {
          expect(isKbError(e, "invalid_id")).toBe(true);
          expect((e as Error).message).toContain(bad.split("/")[0] === good ? bad : good);
        }
      }),
    );
  });

  it("rejects dots, reserved basenames, data/ prefix, .md suffix and depth > 3 on write", () => {
    for (const id of [
      "a/./b",
      "a/../b",
      "..",
      "index",
      "a/log",
      "a/_map",
      "a/_archive",
      "AGENTS",
      "data/a",
      "a.md",
      "a//b",
      "/a",
      "a/",
    ]) {
      expect(
        code(() => validateId(id)),
        id,
      ).toBe("invalid_id");
    }
    expect(code(() => validateId("a/b/c/d"))).toBeNull();
    expect(code(() => validateId("a/b/c/d", { forWrite: true }))).toBe("invalid_id");
    expect(code(() => validateId("services/a/b/c", { forWrite: true }))).toBeNull();
  });

  it("maps services ids and non-concept paths", () => {
    expect(candidatePaths("services/db")).toEqual(["services/db.md", "services/db/index.md"]);
    expect(pathToId("services/db.md")).toBe("services/db");
    expect(pathToId("data/index.md")).toBeNull();
    expect(pathToId("data/log.md")).toBeNull();
    expect(pathToId("data/infra/_archive.md")).toBeNull();
    expect(pathToId("data/infra/pic.png")).toBeNull();
    expect(pathToId("AGENTS.md")).toBeNull();
  });

  it("places ids by their first segment's descriptor kind", () => {
    const maps = [
      parseMapDescriptor(
        "infra",
        "data/infra/_archive.md",
        "---\ntype: Archive\nkind: journal\n---\n",
      ),
      parseMapDescriptor("days", "data/days/_map.md", "---\ntype: Map\nkind: journal\n---\n"),
    ];
    expect(placementOf("infra/rete/dns", maps)).toEqual({ map: "infra", journal: null });
    expect(placementOf("days/2024-01-01", maps)).toEqual({ map: null, journal: "days" });
    expect(placementOf("loose", maps)).toEqual({ map: null, journal: null });
    expect(placementOf("services/infra", maps)).toEqual({ map: null, journal: null });
  });
});
