import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { isKbError } from "../../../src/common/errors.js";
import { AsyncLock } from "../../../src/kb/locks/async-lock.js";
import { applyChanges } from "../../../src/kb/store/apply.js";
import { initKb, openKb } from "../../../src/kb/store/store.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { AUTHOR, commitCount, gitIn, settingsFor } from "../helpers.js";

const newDir = useTempDirs("carto-kb-init-");
let dir: string;
beforeEach(() => {
  dir = newDir();
});

describe("initKb / openKb", () => {
  it("creates the layout with one commit by the given identity, on main, .cartographer excluded", async () => {
    const root = join(dir, "kb");
    await initKb(root, { identity: AUTHOR, title: "Lab" });
    expect(commitCount(root)).toBe(1);
    expect(gitIn(root, ["log", "-1", "--format=%an|%cn|%s"]).trim()).toBe(
      "Kb Test|Kb Test|init: Lab",
    );
    expect(gitIn(root, ["branch", "--show-current"]).trim()).toBe("main");
    const store = await openKb(settingsFor(root));
    expect(await store.readText("data/log.md")).toBe("# Log\n");
    expect(await readFile(join(root, ".git/info/exclude"), "utf8")).toContain("/.cartographer/");
    await writeFile(join(root, ".cartographer/index.db"), "x");
    expect((await store.gitStatus()).dirty).toEqual([]);
    expect(await store.listConcepts()).toEqual([]);
  });

  it("refuses a non-empty folder and leaves nothing behind", async () => {
    const root = join(dir, "busy");
    await mkdir(root);
    await writeFile(join(root, "keep.txt"), "mine");
    await expect(initKb(root)).rejects.toSatisfy((e) => isKbError(e, "already_exists"));
    expect(await readdir(root)).toEqual(["keep.txt"]);
    expect(await readdir(dir)).toEqual(["busy"]);
  });

  it("openKb names data/index.md and the create command when the folder is not a KB", async () => {
    await expect(openKb(settingsFor(dir))).rejects.toSatisfy(
      (e) =>
        isKbError(e, "not_found") &&
        /data\/index\.md.*cartographer kb create/.test((e as Error).message),
    );
  });

  it("autocommit false applies without committing", async () => {
    const root = join(dir, "kb");
    await initKb(root, { identity: AUTHOR });
    const store = await openKb(settingsFor(root, { autocommit: false }));
    const plan = await store.planConceptWrite({
      id: "a",
      frontmatter: { type: "note" },
      body: "x",
      mode: "create",
    });
    const applied = await store.apply(plan);
    expect(await store.commit(applied.paths, "concept_write: a")).toBeNull();
    expect(commitCount(root)).toBe(1);
    expect((await store.readConcept("a")).body).toBe("x\n");
  });
});

describe("apply", () => {
  it("rolls back files already replaced when a later rename fails", async () => {
    await mkdir(join(dir, "data"));
    await writeFile(join(dir, "data/a.md"), "old a");
    // A non-empty directory where the second file should go: its rename fails after the first.
    await mkdir(join(dir, "data/b.md/inner"), { recursive: true });
    await expect(
      applyChanges(dir, [
        { path: "data/a.md", content: "new a" },
        { path: "data/b.md", content: "new b" },
      ]),
    ).rejects.toSatisfy(
      (e) => isKbError(e, "internal") && /rolled back/.test((e as Error).message),
    );
    expect(await readFile(join(dir, "data/a.md"), "utf8")).toBe("old a");
    expect((await readdir(join(dir, "data"))).sort()).toEqual(["a.md", "b.md"]);
  });
});

describe("AsyncLock", () => {
  it("runs holders one at a time in FIFO order, even after a failure", async () => {
    const lock = new AsyncLock();
    const order: string[] = [];
    const hold = (name: string, ms: number, fail = false) =>
      lock.run(async () => {
        order.push(`${name}+`);
        await new Promise((r) => setTimeout(r, ms));
        order.push(`${name}-`);
        if (fail) throw new Error(name);
      });
    const results = await Promise.allSettled([hold("a", 20), hold("b", 1, true), hold("c", 5)]);
    expect(order).toEqual(["a+", "a-", "b+", "b-", "c+", "c-"]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  });
});

describe("initKb identity", () => {
  it("commits as git's own configured user when no identity is given", async () => {
    const dir = newDir();
    const saved = process.env.GIT_CONFIG_GLOBAL;
    try {
      const home = join(dir, "home");
      await mkdir(home);
      await writeFile(
        join(home, ".gitconfig"),
        "[user]\n\tname = Ada Example\n\temail = ada@example.com\n",
      );
      process.env.GIT_CONFIG_GLOBAL = join(home, ".gitconfig"); // git's "global" config file
      await initKb(join(dir, "kb"), { title: "T" });
      expect(gitIn(join(dir, "kb"), ["log", "-1", "--format=%an <%ae>"]).trim()).toBe(
        "Ada Example <ada@example.com>",
      );
    } finally {
      if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = saved;
    }
  });
});
