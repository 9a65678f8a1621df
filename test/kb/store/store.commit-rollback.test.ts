/**
 * A write is one commit or nothing (docs/decisions.md "A write whose commit fails is rolled back"):
 * when git refuses the commit, the files and the git index are put back, and nothing is left staged
 * for the next, unrelated commit.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isKbError } from "../../../src/common/errors.js";
import { KbRuntime } from "../../../src/runtime/kb-runtime.js";
import { openKbIndex } from "../../../src/search/kb-index.js";
import { commitCount, fails, fixtureKb, gitIn, run, type TempKb } from "../helpers.js";

let kb: TempKb;
beforeEach(async () => {
  kb = await fixtureKb();
});
afterEach(async () => kb.cleanup());

const status = () => gitIn(kb.root, ["status", "--porcelain", "--untracked-files=all"]).trim();
const staged = () => gitIn(kb.root, ["diff", "--cached", "--name-only"]).trim();
const headFiles = () =>
  gitIn(kb.root, ["show", "--name-only", "--format=", "HEAD"]).trim().split("\n");

/** A prepare-commit-msg hook (git runs it even with --no-verify) that fails the next commit. */
async function failNextCommit(): Promise<void> {
  const hook = join(kb.root, ".git/hooks/prepare-commit-msg");
  await writeFile(
    hook,
    '#!/bin/sh\nif [ -f .git/fail-once ]; then rm .git/fail-once; echo "hook says no" >&2; exit 1; fi\n',
    { mode: 0o755 },
  );
  await writeFile(join(kb.root, ".git/fail-once"), "");
}

const writePlan = (id: string, body: string) =>
  kb.store.planConceptWrite({ id, frontmatter: { type: "service" }, body, mode: "upsert" });

describe("a failed commit is rolled back", () => {
  it("commit refused after staging (hook): file bytes and git index restored; the next write commits only itself", async () => {
    const file = join(kb.root, "data/infra/rete/dns.md");
    const before = await readFile(file);
    const commits = commitCount(kb.root);
    await failNextCommit();
    await fails(
      run(kb.store, await writePlan("infra/rete/dns", "CHANGED\n"), "concept_write"),
      "git_failed",
      "rolled back",
    );
    expect(await readFile(file)).toEqual(before);
    expect(staged()).toBe("");
    expect(status()).toBe("");
    expect(commitCount(kb.root)).toBe(commits);

    await run(kb.store, await writePlan("infra/nas", "NAS\n"), "concept_write");
    expect(commitCount(kb.root)).toBe(commits + 1);
    expect(headFiles()).toEqual(["data/infra/nas.md"]);
    expect(await readFile(file)).toEqual(before);
    expect(status()).toBe("");
  });

  it("git index.lock held (git add fails): a new file is removed again; retried after the lock goes, it commits", async () => {
    const commits = commitCount(kb.root);
    await writeFile(join(kb.root, ".git/index.lock"), "");
    const err = await run(kb.store, await writePlan("infra/nas", "NAS\n"), "concept_write").catch(
      (e: unknown) => e,
    );
    expect(isKbError(err, "git_failed")).toBe(true);
    expect((err as Error).message).toMatch(
      /not committed and has been rolled back.*send the write again/,
    );
    expect((err as { details?: Record<string, unknown> }).details).toMatchObject({
      rolledBack: true,
      written: false,
    });
    expect(await kb.store.tryReadConcept("infra/nas")).toBeNull();
    await rm(join(kb.root, ".git/index.lock"));
    expect(status()).toBe("");
    await run(kb.store, await writePlan("infra/other", "OTHER\n"), "concept_write");
    expect(headFiles()).toEqual(["data/infra/other.md"]);
    await run(kb.store, await writePlan("infra/nas", "NAS\n"), "concept_write");
    expect(headFiles()).toEqual(["data/infra/nas.md"]);
    expect(commitCount(kb.root)).toBe(commits + 2);
    expect(status()).toBe("");
  });

  it("a move (delete + create) is rolled back whole, emptied folders included", async () => {
    const from = join(kb.root, "data/infra/rete/dns.md");
    const before = await readFile(from);
    await failNextCommit();
    await fails(
      run(
        kb.store,
        await kb.store.planConceptMove({
          moves: [{ from: "infra/rete/dns", to: "moved/deep/dns" }],
          rewriteLinks: true,
        }),
        "concept_move",
      ),
      "git_failed",
      "rolled back",
    );
    expect(await readFile(from)).toEqual(before);
    expect(await kb.store.tryReadConcept("moved/deep/dns")).toBeNull();
    expect(status()).toBe("");
  });

  it("the search index follows the rollback (the refused text is not searchable)", async () => {
    const { index } = await openKbIndex(kb.store);
    try {
      const runtime = new KbRuntime(kb.store, index);
      await failNextCommit();
      const err = await kb.store.withLock(async () => {
        runtime.beginWrite();
        try {
          await runtime.apply(await writePlan("infra/rete/dns", "zebracorn\n"));
          return await runtime.commitSession("concept_write: infra/rete/dns").catch((e) => e);
        } finally {
          runtime.endWrite();
        }
      });
      expect(isKbError(err, "git_failed")).toBe(true);
      const hits = index.search({ query: "zebracorn", limit: 10, visibility: { all: true } });
      expect(hits.results).toEqual([]);
      const dns = index.search({ query: "dns", limit: 10, visibility: { all: true } });
      expect(dns.results.map((h) => h.id)).toContain("infra/rete/dns");
    } finally {
      index.close();
    }
  });
});
