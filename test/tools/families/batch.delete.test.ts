/**
 * concept_batch delete operations take concept_delete's `recursive` and `variant` with the same
 * semantics, and a recursive one is authorized on every file it removes.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Principal } from "../../../src/auth/types.js";
import { silentLogger } from "../../../src/logger.js";
import { surfaceForMount } from "../../../src/mcp/surface-for-mount.js";
import type { MountedKb } from "../../../src/runtime/mount.js";
import { batchTools } from "../../../src/tools/families/batch.js";
import { outcome, run } from "../../support/authz.js";
import { callTool } from "../../support/call-tool.js";
import { principal, type TempMounts, tempMounts } from "../../support/mcp-kit.js";
import {
  commitCount,
  expectKbError,
  headSubject,
  makeTempKb,
  type TempKb,
  tool,
} from "../../support/tool-kb.js";

const batch = tool(batchTools, "concept_batch");
const note = (title: string) => `---\ntype: note\ntitle: ${title}\n---\n${title}\n`;

let kb: TempKb;
beforeEach(async () => {
  kb = await makeTempKb({
    files: {
      "data/topics/big/index.md": note("Big"),
      "data/topics/big/part-a.md": note("A"),
      "data/topics/big/diagram.png": "PNG",
      "data/topics/twin.md": note("Twin flat"),
      "data/topics/twin/index.md": note("Twin expanded"),
    },
  });
});
afterEach(async () => kb.cleanup());

const onDisk = (path: string) => existsSync(join(kb.root, path));

describe("concept_batch delete: recursive and variant", () => {
  it("recursive deletes an expanded concept's whole folder, with the other operations, in one commit", async () => {
    const before = commitCount(kb.root);
    const result = (await callTool(kb.runtime, batch, {
      operations: [
        { op: "write", id: "topics/after", frontmatter: { type: "note" }, body: "x\n" },
        { op: "delete", id: "topics/big", recursive: true },
      ],
    })) as { applied: number };
    expect(result.applied).toBe(2);
    expect(onDisk("data/topics/big")).toBe(false);
    expect(onDisk("data/topics/after.md")).toBe(true);
    expect(commitCount(kb.root)).toBe(before + 1);
    expect(headSubject(kb.root)).toMatch(/^concept_batch: /);
    expect(await kb.runtime.store.tryReadConcept("topics/big/part-a")).toBeNull();
  });

  it("without recursive an expanded concept with satellites is not_empty, naming the operation; nothing is written", async () => {
    const before = commitCount(kb.root);
    const err = await expectKbError(
      () =>
        callTool(kb.runtime, batch, {
          operations: [
            { op: "write", id: "topics/after", frontmatter: { type: "note" }, body: "x\n" },
            { op: "delete", id: "topics/big" },
          ],
        }),
      "not_empty",
    );
    expect(err.message).toContain("operations[1] (delete topics/big)");
    expect(err.message).toContain("recursive");
    expect(onDisk("data/topics/after.md")).toBe(false);
    expect(commitCount(kb.root)).toBe(before);
  });

  it("variant flat / expanded deletes exactly that file of an ambiguous id", async () => {
    await callTool(kb.runtime, batch, {
      operations: [{ op: "delete", id: "topics/twin", variant: "flat" }],
    });
    expect(onDisk("data/topics/twin.md")).toBe(false);
    expect(onDisk("data/topics/twin/index.md")).toBe(true);
  });

  it("a bad variant or recursive is invalid_argument naming the operation", async () => {
    const err = await expectKbError(
      () =>
        callTool(kb.runtime, batch, {
          operations: [{ op: "delete", id: "topics/twin", variant: "both" }],
        }),
      "invalid_argument",
    );
    expect(err.message).toContain("operations[0]");
    const both = await expectKbError(
      () =>
        callTool(kb.runtime, batch, {
          operations: [{ op: "delete", id: "topics/twin", variant: "flat", recursive: true }],
        }),
      "invalid_argument",
    );
    expect(both.message).toContain("either variant or recursive");
  });

  it("names every file a recursive delete operation removes as a write target (and none otherwise)", async () => {
    const extra = await batch.storeTargets?.(
      {
        operations: [
          { op: "delete", id: "topics/twin", variant: "flat" },
          { op: "write", id: "topics/big/new", recursive: true },
          { op: "delete", id: "topics/big", recursive: true },
        ],
      },
      kb.runtime.store,
    );
    expect(extra).toEqual([
      { id: "topics/big/diagram.png", write: true },
      { id: "topics/big/part-a", write: true },
    ]);
  });
});

describe("concept_batch recursive delete under a typed role", () => {
  let kbs: TempMounts;
  let main: MountedKb;
  const TYPED: Principal = principal("typed", [{ kb: "main", access: "rw", types: ["note"] }]);
  const write = (id: string, type = "note") =>
    run(main, "concept_write", { id, frontmatter: { type, title: id }, body: "x\n" });

  beforeAll(async () => {
    kbs = await tempMounts(["main"]);
    main = kbs.byName.main as MountedKb;
    for (const box of ["box-mixed", "box-notes"]) {
      await write(box);
      await run(main, "concept_expand", { id: box });
      await write(`${box}/one`);
    }
    await write("box-mixed/secret-task", "task");
  }, 30_000);
  afterAll(async () => kbs?.cleanup());

  const del = async (id: string) =>
    outcome(
      await surfaceForMount(main, { logger: silentLogger }).callTool(
        "concept_batch",
        { operations: [{ op: "delete", id, recursive: true }] },
        { principal: TYPED, transport: "in-memory", requestId: "" },
      ),
    );
  const exists = (path: string) => existsSync(join(main.settings.root, path));

  it("deletes a folder holding only its type", async () => {
    const got = await del("box-notes");
    expect(got.isError, got.text).toBe(false);
    expect(exists("data/box-notes")).toBe(false);
  });

  it("refuses a folder with a satellite of another type, deleting nothing", async () => {
    const got = await del("box-mixed");
    expect(got.isError).toBe(true);
    expect(got.text).toMatch(/^(forbidden|not found)/);
    expect(exists("data/box-mixed/secret-task.md")).toBe(true);
    expect(exists("data/box-mixed/index.md")).toBe(true);
  });
});
