/**
 * No error text ever carries an absolute server path (docs/decisions.md "Every error text is
 * scrubbed"). Internal failures are provoked on a real KB (a folder where a concept file would go,
 * a file where a folder must be) and rendered by the real call pipeline; the scrub itself is pinned
 * on sample messages.
 */
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logger.js";
import { surfaceForMount } from "../../src/mcp/surface-for-mount.js";
import type { MountedKb } from "../../src/runtime/mount.js";
import { scrubPaths } from "../../src/tools/result.js";
import { callSurface } from "../support/call-tool.js";
import { must, type TempMounts, tempMounts } from "../support/mcp-kit.js";

let kbs: TempMounts;
let main: MountedKb;
beforeAll(async () => {
  kbs = await tempMounts(["main"]);
  main = must(kbs.byName.main);
});
afterAll(async () => kbs?.cleanup());

async function errorText(name: string, args: Record<string, unknown>): Promise<string> {
  const result = await callSurface(
    surfaceForMount(main, { audit: null, logger: silentLogger }),
    name,
    args,
  );
  expect(result.isError, JSON.stringify(result)).toBe(true);
  return (result.content as Array<{ text: string }>).map((c) => c.text).join("\n");
}

/** An absolute path: `/` at the start or after a space, quote or bracket, then a name. */
const ABSOLUTE = /(^|[\s'"`(<[{=,])\/[A-Za-z0-9_.-]/;

describe("error texts carry no absolute server path", () => {
  it("failures from the file system and git name files relative to the KB", async () => {
    const root = main.runtime.store.root;
    // A socket where a concept file would be: reading it fails (ENXIO), an internal error
    // whose raw message names the absolute path.
    const socket = createServer();
    await new Promise<void>((ok) => socket.listen(join(root, "data", "sock.md"), ok));
    let texts: string[];
    try {
      texts = [await errorText("concept_read", { id: "sock" })];
    } finally {
      await new Promise((ok) => socket.close(ok));
    }
    expect(texts[0]).toMatch(/^internal: /);
    // A symlink loop is refused by name, like a symlink leading outside.
    await symlink(join(root, "data", "loop.md"), join(root, "data", "loop.md"));
    texts.push(await errorText("concept_read", { id: "loop" }));
    expect(texts[1]).toMatch(/^invalid_argument: .*symlink loop/);
    // A folder where the concept file would go, a file where a folder must be: refused up front.
    await mkdir(join(root, "data", "blocked.md"), { recursive: true });
    await writeFile(join(root, "data", "blocked.md", "x"), "x");
    texts.push(
      await errorText("concept_write", {
        id: "blocked",
        frontmatter: { type: "note" },
        body: "b\n",
      }),
    );
    await writeFile(join(root, "data", "plainfile"), "x");
    texts.push(
      await errorText("concept_write", {
        id: "plainfile/child",
        frontmatter: { type: "note" },
        body: "b\n",
      }),
    );
    expect(texts[2]).toMatch(/^invalid_argument: .*is a folder/);
    expect(texts[3]).toMatch(/^invalid_argument: .*is a file/);
    // git cannot take its index lock: git_failed quotes git's message with the lock's path.
    await writeFile(join(root, ".git", "index.lock"), "");
    try {
      texts.push(
        await errorText("concept_write", {
          id: "gitfail",
          frontmatter: { type: "note" },
          body: "b\n",
        }),
      );
    } finally {
      await rm(join(root, ".git", "index.lock"), { force: true });
    }
    expect(texts[4]).toMatch(/^git_failed: .*index\.lock/);
    for (const text of texts) {
      expect(text).not.toContain(root);
      expect(text, text).not.toMatch(ABSOLUTE);
    }
  });

  it("scrubPaths makes the KB root relative and shortens any other absolute path", () => {
    const root = "/srv/kbs/main";
    expect(
      scrubPaths(
        `EISDIR: illegal operation on a directory, rename '${root}/data/.x.tmp' -> '${root}/data/a.md'`,
        [root],
      ),
    ).toBe("EISDIR: illegal operation on a directory, rename 'data/.x.tmp' -> 'data/a.md'");
    expect(
      scrubPaths("ENOENT: no such file or directory, open '/private/srv/kbs/main/data/a.md'", [
        root,
      ]),
    ).toBe("ENOENT: no such file or directory, open '…/a.md'");
    expect(scrubPaths(`fatal: Unable to create ${root}/.git/index.lock: File exists`, [root])).toBe(
      "fatal: Unable to create .git/index.lock: File exists",
    );
    expect(scrubPaths("not a KB: /home/u/kb (run cartographer kb create)")).toBe(
      "not a KB: …/kb (run cartographer kb create)",
    );
    // Relative paths, ids and URLs stay as they are.
    const plain = 'id "a/b": segment "b" is reserved; see https://example.org/docs/x';
    expect(scrubPaths(plain, [root])).toBe(plain);
  });
});
