import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { batchTools, MAX_BATCH_BYTES } from "../../../src/tools/families/batch.js";
import { writeTools } from "../../../src/tools/families/write.js";
import { callTool } from "../../support/call-tool.js";
import {
  commitCount,
  expectKbError,
  makeTempKb,
  type TempKb,
  tool,
} from "../../support/tool-kb.js";

const batch = tool(batchTools, "concept_batch");
const write = tool(writeTools, "concept_write");

let kb: TempKb;
beforeAll(async () => {
  kb = await makeTempKb();
  await callTool(kb.runtime, write, {
    id: "b/existing",
    frontmatter: { type: "note" },
    body: "keep me\n",
  });
  await callTool(kb.runtime, write, {
    id: "b/doomed",
    frontmatter: { type: "note" },
    body: "bye\n",
  });
});
afterAll(async () => kb.cleanup());

const w = (id: string, body = "x\n") => ({ op: "write", id, frontmatter: { type: "note" }, body });

describe("concept_batch", () => {
  it("applies write, patch and delete as one commit", async () => {
    const before = commitCount(kb.root);
    const result = (await callTool(kb.runtime, batch, {
      operations: [
        w("b/new1"),
        { op: "patch", id: "b/existing", old_string: "keep", new_string: "kept" },
        { op: "delete", id: "b/doomed" },
      ],
    })) as { applied: number };
    expect(result.applied).toBe(3);
    expect(commitCount(kb.root)).toBe(before + 1);
    expect((await kb.runtime.store.readConcept("b/existing")).body).toContain("kept me");
    expect(await kb.runtime.store.tryReadConcept("b/doomed")).toBeNull();
    expect(await kb.runtime.store.tryReadConcept("b/new1")).not.toBeNull();
  });

  it("validates every operation before the first write (a late failure writes nothing)", async () => {
    const before = commitCount(kb.root);
    const err = await expectKbError(
      () =>
        callTool(kb.runtime, batch, {
          operations: [
            w("b/late1"),
            w("b/late2"),
            { op: "patch", id: "b/existing", old_string: "absent", new_string: "x" },
          ],
        }),
      "old_string_not_found",
    );
    expect(err.message).toContain("operations[2] (patch b/existing)");
    expect(commitCount(kb.root)).toBe(before);
    expect(await kb.runtime.store.tryReadConcept("b/late1")).toBeNull();
  });

  it("names the operation whose arguments are invalid", async () => {
    const err = await expectKbError(
      () =>
        callTool(kb.runtime, batch, {
          operations: [w("b/ok"), { op: "write", id: "b/bad", body: "x" }],
        }),
      "invalid_argument",
    );
    expect(err.message).toContain("operations[1] (write b/bad)");
    expect(err.message).toContain("'frontmatter' is required");
    await expectKbError(
      () => callTool(kb.runtime, batch, { operations: [{ op: "rename", id: "b/x" }] }),
      "invalid_argument",
    );
  });

  it("requires distinct ids", async () => {
    const err = await expectKbError(
      () => callTool(kb.runtime, batch, { operations: [w("b/d"), w("b/d")] }),
      "invalid_argument",
    );
    expect(err.message).toContain(
      "operations[1] (write b/d): id b/d also appears in operations[0]",
    );
  });

  it("refuses more than 50 operations or more than 512 KiB", async () => {
    const many = Array.from({ length: 51 }, (_, i) => w(`b/m${i}`));
    await expectKbError(() => callTool(kb.runtime, batch, { operations: many }), "too_large");
    const big = "y".repeat(MAX_BATCH_BYTES);
    await expectKbError(
      () => callTool(kb.runtime, batch, { operations: [w("b/big", big)] }),
      "too_large",
    );
    await expectKbError(() => callTool(kb.runtime, batch, { operations: [] }), "invalid_argument");
  });

  it("rolls back files when applying fails part-way", async () => {
    const before = commitCount(kb.root);
    const original = await readFile(join(kb.root, "data/b/existing.md"), "utf8");
    const store = kb.runtime.store;
    const realPlanBatch = store.planBatch.bind(store);
    // A change whose path cannot be written (a directory in the way) fails at apply time.
    (store as { planBatch: typeof store.planBatch }).planBatch = (plans, target) => {
      const merged = realPlanBatch(plans, target);
      return { ...merged, changes: [...merged.changes, { path: "data/b", content: "not a dir" }] };
    };
    try {
      await expect(
        callTool(kb.runtime, batch, {
          operations: [
            { op: "patch", id: "b/existing", old_string: "kept", new_string: "changed" },
            w("b/rolled"),
          ],
        }),
      ).rejects.toThrow();
    } finally {
      (store as { planBatch: typeof store.planBatch }).planBatch = realPlanBatch;
    }
    expect(await readFile(join(kb.root, "data/b/existing.md"), "utf8")).toBe(original);
    expect(await kb.runtime.store.tryReadConcept("b/rolled")).toBeNull();
    expect(commitCount(kb.root)).toBe(before);
  });
});
