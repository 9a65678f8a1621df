import { afterEach, describe, expect, it } from "vitest";
import { freshKb, run, type TempKb } from "../helpers.js";

let kb: TempKb | null = null;
afterEach(async () => {
  await kb?.cleanup();
  kb = null;
});

async function write(k: TempKb, id: string, body: string): Promise<void> {
  const plan = await k.store.planConceptWrite({
    id,
    frontmatter: { type: "note" },
    body,
    mode: "create",
  });
  await run(k.store, plan, "concept_write");
}

describe("concept_move result", () => {
  it("counts only the files whose links were rewritten", async () => {
    kb = await freshKb();
    await write(kb, "a", "alpha");
    await write(kb, "b", "links to [[a]]");
    await write(kb, "c", "no links");
    const rewriting = await kb.store.planConceptMove({
      moves: [{ from: "a", to: "a2" }],
      rewriteLinks: true,
    });
    expect(rewriting.result.rewritten).toBe(1);
    const plain = await kb.store.planConceptMove({
      moves: [{ from: "a", to: "a2" }],
      rewriteLinks: false,
    });
    expect(plain.result.rewritten).toBe(0);
  });
});
