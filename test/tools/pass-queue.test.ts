/**
 * The per-KB queue of whole-KB passes (src/tools/pass-queue.ts): a slot bound, a bounded wait
 * queue, a per-principal share, a wait that runs out, and freed slots going to the principal
 * that runs the fewest passes. Passes here are promises the test settles by hand.
 */
import { describe, expect, it } from "vitest";
import { isKbError } from "../../src/common/errors.js";
import { type PassLimits, PassQueue } from "../../src/tools/pass-queue.js";
import { allTools } from "../../src/tools/registry.js";

const LIMITS: PassLimits = { concurrency: 2, perPrincipal: 3, queued: 3, waitMs: 60_000 };

/** A pass that runs until `finish()`; `started` says whether the queue let it start. */
function gatedPass(): { run: () => Promise<string>; finish: () => void; started: boolean } {
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const pass = {
    started: false,
    finish: () => release(),
    run: async () => {
      pass.started = true;
      await gate;
      return "done";
    },
  };
  return pass;
}

const settle = () => new Promise((r) => setImmediate(r));

async function busyMessage(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (isKbError(err, "busy")) return err.message;
    throw err;
  }
  throw new Error("expected busy");
}

describe("PassQueue", () => {
  it("runs at most `concurrency` passes at once; the next starts when one finishes", async () => {
    const q = new PassQueue(LIMITS);
    const passes = [gatedPass(), gatedPass(), gatedPass()];
    const results = passes.map((p, i) => q.run(`p${i}`, "lint", p.run));
    await settle();
    expect(passes.map((p) => p.started)).toEqual([true, true, false]);
    expect(q.stats).toEqual({ running: 2, waiting: 1 });
    passes[0]?.finish();
    await results[0];
    await settle();
    expect(passes[2]?.started).toBe(true);
    for (const p of passes) p.finish();
    expect(await Promise.all(results)).toEqual(["done", "done", "done"]);
    expect(q.stats).toEqual({ running: 0, waiting: 0 });
  });

  it("answers busy past its bound of waiting passes, naming the tool and the limit", async () => {
    const q = new PassQueue(LIMITS);
    const passes = Array.from({ length: 5 }, () => gatedPass());
    const admitted = passes.map((p, i) => q.run(`p${i}`, "lint", p.run));
    await settle();
    const refused = gatedPass();
    const message = await busyMessage(q.run("late", "gate_check", refused.run));
    expect(message).toMatch(/^gate_check: 2 whole-KB passes are running and 3 waiting/);
    expect(message).toContain("limit 3 waiting");
    expect(refused.started).toBe(false);
    for (const p of passes) p.finish();
    await Promise.all(admitted);
  });

  it("holds a per-principal share: one token cannot take every slot and the whole queue", async () => {
    const q = new PassQueue(LIMITS);
    const mine = Array.from({ length: 3 }, () => gatedPass());
    const admitted = mine.map((p) => q.run("greedy", "lint", p.run));
    await settle();
    const fourth = await busyMessage(q.run("greedy", "lint", gatedPass().run));
    expect(fourth).toContain("this token already has 3 whole-KB passes running or waiting");
    // Another principal still gets in, and it is next when a slot frees (fewest running).
    const other = gatedPass();
    const theirs = q.run("other", "lint", other.run);
    await settle();
    expect(q.stats).toEqual({ running: 2, waiting: 2 });
    mine[0]?.finish();
    await settle();
    expect(other.started).toBe(true);
    expect(mine[2]?.started).toBe(false);
    for (const p of [...mine, other]) p.finish();
    await Promise.all([...admitted, theirs]);
    // The share is given back once the passes answered.
    expect(await q.run("greedy", "lint", async () => "again")).toBe("again");
  });

  it("a pass still waiting after waitMs is answered busy and never runs", async () => {
    const q = new PassQueue({ ...LIMITS, concurrency: 1, waitMs: 30 });
    const first = gatedPass();
    const running = q.run("a", "lint", first.run);
    const waiting = gatedPass();
    const message = await busyMessage(q.run("b", "validate", waiting.run));
    expect(message).toMatch(/^validate: waited 0.03 s for one of the 1 whole-KB pass slots/);
    expect(waiting.started).toBe(false);
    expect(q.stats).toEqual({ running: 1, waiting: 0 });
    first.finish();
    await running;
  });

  it("a pass that throws frees its slot and its share", async () => {
    const q = new PassQueue({ ...LIMITS, concurrency: 1, perPrincipal: 1 });
    await expect(
      q.run("a", "lint", async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(q.stats).toEqual({ running: 0, waiting: 0 });
    expect(await q.run("a", "lint", async () => 1)).toBe(1);
  });
});

describe("which calls are whole-KB passes", () => {
  const spec = (name: string) => allTools().find((s) => s.name === name);

  it("every tool that reads or rewrites the whole KB, whatever its arguments", () => {
    const always = allTools()
      .filter((s) => s.wholeKbPass?.({ id: "x", limit: 1 }))
      .map((s) => s.name)
      .sort();
    expect(always).toEqual([
      "changes_since",
      "conflict_resolve",
      "contradiction_report",
      "gate_check",
      "graph_neighbors",
      "index_rebuild",
      "lint",
      "reindex",
    ]);
  });

  it("validate only without id, concept_list only past its default page", () => {
    expect(spec("validate")?.wholeKbPass?.({})).toBe(true);
    expect(spec("validate")?.wholeKbPass?.({ id: "a/b" })).toBe(false);
    expect(spec("concept_list")?.wholeKbPass?.({ limit: 500 })).toBe(false);
    expect(spec("concept_list")?.wholeKbPass?.({ limit: 5000 })).toBe(true);
    expect(spec("concept_read")?.wholeKbPass).toBeUndefined();
    expect(spec("search")?.wholeKbPass).toBeUndefined();
  });
});
