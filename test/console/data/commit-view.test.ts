/** viewCommit (pure): what a viewer seeing some ids may see of one commit. */
import { describe, expect, it } from "vitest";
import {
  MAX_COMMIT_FILES,
  viewCommit,
  WITHHELD_SUBJECT,
} from "../../../src/console/data/commit-view.js";
import type { RawCommit } from "../../../src/console/data/git-reads.js";

const commit = (subject: string, files: RawCommit["files"], parents = ["p"]): RawCommit => ({
  sha: "a".repeat(40),
  parents,
  time: "2026-01-01T00:00:00Z",
  author: "someone",
  subject,
  files,
});
const seen = new Set(["pub/a", "pub/b"]);

describe("viewCommit", () => {
  it("keeps a commit of visible files as written", () => {
    const v = viewCommit(
      commit("concept_write: pub/a", [{ status: "M", paths: ["data/pub/a.md"] }]),
      false,
      seen,
    );
    expect(v).toMatchObject({
      subject: "concept_write: pub/a",
      retold: false,
      paths: ["data/pub/a.md"],
    });
  });

  it("drops a commit with no visible concept file", () => {
    expect(
      viewCommit(
        commit("concept_write: sec/x", [{ status: "A", paths: ["data/sec/x.md"] }]),
        false,
        seen,
      ),
    ).toBeNull();
    expect(
      viewCommit(
        commit("map_create: pub", [{ status: "A", paths: ["data/pub/_map.md"] }]),
        false,
        seen,
      ),
    ).toBeNull();
    expect(viewCommit(commit("Merge", [], ["p", "q"]), false, seen)).toBeNull();
    expect(viewCommit(commit("Merge", [], ["p", "q"]), true, seen)).toMatchObject({
      merge: true,
      files: [],
    });
  });

  it("shows a rename with a hidden side as the visible side's add or delete", () => {
    const into = viewCommit(
      commit("concept_move: sec/x, pub/a", [
        { status: "R", paths: ["data/sec/x.md", "data/pub/a.md"] },
      ]),
      false,
      seen,
    );
    expect(into).toMatchObject({
      subject: "concept_move: pub/a",
      files: [{ status: "A", paths: ["data/pub/a.md"] }],
    });
    const out = viewCommit(
      commit("concept_move: pub/a, sec/x", [
        { status: "R", paths: ["data/pub/a.md", "data/sec/x.md"] },
      ]),
      false,
      seen,
    );
    expect(out).toMatchObject({ files: [{ status: "D", paths: ["data/pub/a.md"] }] });
    expect(JSON.stringify([into, out])).not.toContain("sec/");
  });

  it("withholds a free-form subject that touched something hidden", () => {
    const v = viewCommit(
      commit("sync sec/x with pub/a", [
        { status: "M", paths: ["data/pub/a.md"] },
        { status: "M", paths: ["data/sec/x.md"] },
      ]),
      false,
      seen,
    );
    expect(v?.subject).toBe(WITHHELD_SUBJECT);
  });

  it("judges at most MAX_COMMIT_FILES files and says the list is cut", () => {
    const files = Array.from({ length: MAX_COMMIT_FILES + 5 }, (_, i) => ({
      status: "A",
      paths: [`data/pub/n${i}.md`],
    }));
    const v = viewCommit(commit("import", files), true, seen);
    expect(v?.files).toHaveLength(MAX_COMMIT_FILES);
    expect(v?.filesCut).toBe(true);
  });
});
