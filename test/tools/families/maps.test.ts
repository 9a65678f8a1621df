import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mapTools } from "../../../src/tools/families/maps.js";
import { writeTools } from "../../../src/tools/families/write.js";
import { callTool } from "../../support/call-tool.js";
import {
  commitCount,
  expectKbError,
  GIT_ENV,
  headSubject,
  makeTempKb,
  type TempKb,
  tool,
} from "../../support/tool-kb.js";

let kb: TempKb;
beforeAll(async () => {
  kb = await makeTempKb();
});
afterAll(async () => kb.cleanup());

describe("map_create / map_delete", () => {
  it("kind defaults to map (Go's kb-create skill sends only {name, title})", async () => {
    await callTool(kb.runtime, tool(mapTools, "map_create"), { name: "gomap", title: "Go Map" });
    const maps = await kb.runtime.store.maps();
    expect(maps.find((m) => m.name === "gomap")).toMatchObject({ kind: "map", title: "Go Map" });
  });

  it("creates a map in one commit and refuses a duplicate", async () => {
    const before = commitCount(kb.root);
    await callTool(kb.runtime, tool(mapTools, "map_create"), {
      name: "infra",
      kind: "map",
      title: "Infra",
      concept_types: ["service"],
      ontology_mode: "strict",
    });
    expect(commitCount(kb.root)).toBe(before + 1);
    expect(headSubject(kb.root)).toBe("map_create: infra");
    const maps = await kb.runtime.store.maps();
    expect(maps.find((m) => m.name === "infra")).toMatchObject({
      kind: "map",
      ontologyMode: "strict",
    });
    await expectKbError(
      () => callTool(kb.runtime, tool(mapTools, "map_create"), { name: "infra", kind: "map" }),
      "already_exists",
    );
    await expectKbError(
      () => callTool(kb.runtime, tool(mapTools, "map_create"), { name: "x", kind: "folder" }),
      "invalid_argument",
    );
  });

  it("a strict palette is enforced on writes into the map", async () => {
    const write = tool(writeTools, "concept_write");
    await expectKbError(
      () =>
        callTool(kb.runtime, write, {
          id: "infra/thing",
          frontmatter: { type: "recipe" },
          body: "",
        }),
      "validation_failed",
    );
  });

  it("refuses to delete a non-empty map, listing what remains; deletes an empty one", async () => {
    await callTool(kb.runtime, tool(writeTools, "concept_write"), {
      id: "infra/db",
      frontmatter: { type: "service" },
      body: "db\n",
    });
    const err = await expectKbError(
      () => callTool(kb.runtime, tool(mapTools, "map_delete"), { name: "infra" }),
      "not_empty",
    );
    expect(err.message).toContain("data/infra/db.md");
    await callTool(kb.runtime, tool(writeTools, "concept_delete"), { id: "infra/db" });
    const before = commitCount(kb.root);
    await callTool(kb.runtime, tool(mapTools, "map_delete"), { name: "infra" });
    expect(commitCount(kb.root)).toBe(before + 1);
    expect((await kb.runtime.store.maps()).some((m) => m.name === "infra")).toBe(false);
    await expectKbError(
      () => callTool(kb.runtime, tool(mapTools, "map_delete"), { name: "infra" }),
      "not_found",
    );
  });
});

describe("index_patch", () => {
  it("appends to the root index and edits a map index, one commit each", async () => {
    const patch = tool(mapTools, "index_patch");
    const before = commitCount(kb.root);
    await callTool(kb.runtime, patch, { append: "- [[notes/alpha]] first note" });
    expect(commitCount(kb.root)).toBe(before + 1);
    expect(await readFile(join(kb.root, "data/index.md"), "utf8")).toContain(
      "[[notes/alpha]] first note",
    );
    await callTool(kb.runtime, tool(mapTools, "map_create"), { name: "journal", kind: "journal" });
    await callTool(kb.runtime, patch, { scope: "journal", append: "- entries" });
    await callTool(kb.runtime, patch, {
      scope: "journal",
      old_string: "- entries",
      new_string: "- all entries",
    });
    expect(await readFile(join(kb.root, "data/journal/index.md"), "utf8")).toContain(
      "- all entries",
    );
  });
  it("documented errors", async () => {
    const patch = tool(mapTools, "index_patch");
    await expectKbError(() => callTool(kb.runtime, patch, {}), "invalid_argument");
    await expectKbError(
      () => callTool(kb.runtime, patch, { old_string: "zzz-absent", new_string: "x" }),
      "old_string_not_found",
    );
    await expectKbError(
      () => callTool(kb.runtime, patch, { append: "x", if_match: "0".repeat(64) }),
      "stale_write",
    );
    await expectKbError(
      () => callTool(kb.runtime, patch, { scope: "nomap", append: "x" }),
      "not_found",
    );
  });
});

describe("log_append and snapshot", () => {
  it("appends a dated entry in one commit", async () => {
    const before = commitCount(kb.root);
    await callTool(kb.runtime, tool(mapTools, "log_append"), { entry: "Reorganized notes." });
    expect(commitCount(kb.root)).toBe(before + 1);
    expect(await readFile(join(kb.root, "data/log.md"), "utf8")).toContain("Reorganized notes.");
    await expectKbError(
      () => callTool(kb.runtime, tool(mapTools, "log_append"), { entry: "  " }),
      "invalid_argument",
    );
    await expectKbError(
      () => callTool(kb.runtime, tool(mapTools, "log_append"), {}),
      "invalid_argument",
    );
  });
  it("tags the current state without a commit", async () => {
    const before = commitCount(kb.root);
    const result = (await callTool(kb.runtime, tool(mapTools, "snapshot"), {
      label: "before-cleanup",
    })) as {
      tag: string;
      sha: string;
    };
    expect(commitCount(kb.root)).toBe(before);
    const tags = execFileSync("git", ["tag", "--list"], { cwd: kb.root, env: GIT_ENV }).toString();
    expect(tags).toContain(result.tag);
    const unlabeled = (await callTool(kb.runtime, tool(mapTools, "snapshot"), {})) as {
      tag: string;
    };
    await expectKbError(
      () => callTool(kb.runtime, tool(mapTools, "snapshot"), { label: "before-cleanup" }),
      "already_exists",
    );
    expect(unlabeled.tag).toMatch(/^snapshot\/\d{8}T\d{6}Z$/);
  });
  it("refuses a label it would have to rewrite, naming the allowed characters; no tag made", async () => {
    const tagsBefore = execFileSync("git", ["tag", "--list"], { cwd: kb.root, env: GIT_ENV });
    for (const label of ["bad label!", " padded", "-lead", "trail.", "a..b", "x.lock", "ü"]) {
      const err = await expectKbError(
        () => callTool(kb.runtime, tool(mapTools, "snapshot"), { label }),
        "invalid_argument",
      );
      expect(err.message, label).toContain("A-Z a-z 0-9 . _ -");
    }
    const tagsAfter = execFileSync("git", ["tag", "--list"], { cwd: kb.root, env: GIT_ENV });
    expect(tagsAfter.toString()).toBe(tagsBefore.toString());
    const ok = (await callTool(kb.runtime, tool(mapTools, "snapshot"), { label: "v1.2_rc-3" })) as {
      tag: string;
    };
    expect(ok.tag).toBe("snapshot/v1.2_rc-3");
  });
});
