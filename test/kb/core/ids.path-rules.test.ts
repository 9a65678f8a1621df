/**
 * docs/decisions.md "Ids and paths are judged up front" — length (segment ≤ 128, id ≤ 255 bytes), kind (a folder is not a file), hidden segments, control
 * and bidi characters — and an asset path reaches `git add` literally (`public/*` stages that one
 * file).
 */
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeRelPath } from "../../../src/common/paths.js";
import { validateId } from "../../../src/kb/core/ids.js";
import { fails, freshKb, gitIn, PNG, run, type TempKb } from "../helpers.js";

let kb: TempKb;
beforeAll(async () => {
  kb = await freshKb();
});
afterAll(async () => kb?.cleanup());

const note = { type: "note" };
const write = (id: string) =>
  kb.store.planConceptWrite({ id, frontmatter: note, body: "x\n", mode: "upsert" });
const asset = (path: string) => kb.store.planAssetWrite({ path, bytes: PNG });

describe("lengths", () => {
  it("a segment over 128 bytes is invalid_id, never ENAMETOOLONG", async () => {
    await fails(write(`a/${"b".repeat(129)}`), "invalid_id", "longer than 128 bytes");
    await fails(write(`${"b".repeat(300)}`), "invalid_id");
    await fails(kb.store.readConcept(`${"b".repeat(300)}`), "invalid_id");
    await write(`a/${"b".repeat(128)}`); // the limit itself is fine
  });

  it("an id over 255 bytes is invalid_id, even with short segments", () => {
    const id = Array.from({ length: 30 }, () => "abcdefghi").join("/"); // 299 bytes
    expect(() => validateId(id)).toThrow(/is 299 bytes long; the limit is 255/);
  });

  it("a map or skill name over 128 bytes is invalid_id", async () => {
    const name = "m".repeat(300);
    await fails(kb.store.planMapCreate({ name, kind: "map" }), "invalid_id", "longer than");
    await fails(kb.store.planSkillInstall({ name, files: { "SKILL.md": "x" } }), "invalid_id");
  });

  it("an asset path segment over 128 bytes is invalid_argument", async () => {
    await fails(asset(`public/${"c".repeat(200)}.bin`), "invalid_argument", "longer than 128");
  });
});

describe("kinds", () => {
  it("asset_write onto an existing folder is a clear invalid_argument, no absolute path", async () => {
    await mkdir(join(kb.root, "data", "public"), { recursive: true });
    await writeFile(join(kb.root, "data", "public", "x.bin"), PNG);
    try {
      await asset("public");
      expect.unreachable("wrote over a folder");
    } catch (e) {
      expect((e as { code?: string }).code).toBe("invalid_argument");
      expect((e as Error).message).toContain('"data/public" is a folder');
      expect((e as Error).message).not.toContain(kb.root);
    }
    await fails(asset("public/x.bin/inner.bin"), "invalid_argument", "is a file");
  });
});

describe("files that are not regular files", () => {
  it("a FIFO where a concept or asset would be reads as absent instead of hanging", async () => {
    execFileSync("mkfifo", [join(kb.root, "data", "fifo.md"), join(kb.root, "data", "fifo.bin")]);
    const timeout = new Promise((_, reject) =>
      setTimeout(() => reject(new Error("read blocked on a FIFO")), 5_000).unref(),
    );
    expect(await Promise.race([kb.store.tryReadConcept("fifo"), timeout])).toBeNull();
    await fails(Promise.race([kb.store.readAsset("fifo.bin"), timeout]), "not_found");
  });
});

describe("hidden segments", () => {
  it("ids with a segment starting with . are invalid_id (write and read)", async () => {
    for (const id of [".git/config", "public/.hidden", ".hidden", "a/.b/c"]) {
      await fails(write(id), "invalid_id", "starts with");
      await fails(kb.store.readConcept(id), "invalid_id");
    }
  });

  it("asset paths with a hidden segment are refused", async () => {
    for (const path of [".git/config", "public/.hidden", "data/.x/y.bin"]) {
      await fails(asset(path), "invalid_argument", "hidden segment");
    }
  });
});

describe("control and bidi characters", () => {
  const bad = [
    "\n",
    "\r",
    "\t",
    "\u0007",
    "\u007f",
    "\u0085",
    "\u202e",
    "\u202a",
    "\u2066",
    "\u2069",
    "\u200e",
    "\u200f",
  ];

  it("are refused in every path, and the error shows them escaped", async () => {
    for (const c of bad) {
      await fails(asset(`public/a${c}b.bin`), "invalid_argument", "control or bidi");
      try {
        normalizeRelPath(`public/a${c}b.bin`);
      } catch (e) {
        expect((e as Error).message).not.toContain(c);
      }
    }
  });

  it("a file named with one (made outside the tools) is never listed", async () => {
    await mkdir(join(kb.root, "data", "bidi"), { recursive: true });
    await writeFile(join(kb.root, "data", "bidi", "gpj\u202e.exe"), PNG);
    await writeFile(join(kb.root, "data", "bidi", "plain.bin"), PNG);
    const listed = (await kb.store.assets("bidi")).map((a) => a.path);
    expect(listed).toEqual(["data/bidi/plain.bin"]);
  });

  it("are refused in ids", async () => {
    for (const c of bad) await fails(write(`a/x${c}y`), "invalid_id");
  });
});

describe("literal pathspecs", () => {
  it("an asset named public/* stages only itself, not its unstaged neighbours", async () => {
    await mkdir(join(kb.root, "data", "lit"), { recursive: true });
    await writeFile(join(kb.root, "data", "lit", "a.bin"), "neighbour a");
    await writeFile(join(kb.root, "data", "lit", "b.bin"), "neighbour b");
    const sha = await run(kb.store, await asset("lit/*"), "asset_write");
    expect(sha).not.toBeNull();
    const committed = gitIn(kb.root, ["show", "--name-only", "--format=", "HEAD"]).trim();
    expect(committed.split("\n")).toEqual(["data/lit/*"]);
    const status = gitIn(kb.root, ["status", "--porcelain", "--untracked-files=all", "data/lit"]);
    expect(status).toContain("?? data/lit/a.bin");
    expect(status).toContain("?? data/lit/b.bin");
  });

  it("deleting the asset public/* stages only that deletion (a glob would sweep up the rest)", async () => {
    const sha = await run(
      kb.store,
      await kb.store.planAssetDelete({ path: "lit/*" }),
      "asset_delete",
    );
    expect(sha).not.toBeNull();
    const committed = gitIn(kb.root, ["show", "--name-only", "--format=", "HEAD"]).trim();
    expect(committed.split("\n")).toEqual(["data/lit/*"]);
    // Nothing else staged behind the caller's back for the next unrelated commit to sweep up.
    expect(gitIn(kb.root, ["diff", "--cached", "--name-only"]).trim()).toBe("");
    const status = gitIn(kb.root, ["status", "--porcelain", "--untracked-files=all", "data/lit"]);
    expect(status).toContain("?? data/lit/a.bin");
    expect(status).toContain("?? data/lit/b.bin");
  });
});
