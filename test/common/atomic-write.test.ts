import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { TEMP_MARKER, writeFileAtomic } from "../../src/common/atomic-write.js";
import { useTempDirs } from "../support/temp-dir.js";

const sandbox = useTempDirs("carto-atomic-");
let dir: string;
beforeEach(() => {
  dir = sandbox();
});

describe("writeFileAtomic (the one atomic-write module)", () => {
  it("replaces the whole content and leaves no temp file", async () => {
    const file = join(dir, "f.json");
    await writeFile(file, "old and longer than the new content\n");
    await writeFileAtomic(file, "new\n");
    expect(await readFile(file, "utf8")).toBe("new\n");
    expect(await readdir(dir)).toEqual(["f.json"]);
  });

  it("gives the file exactly the requested mode whatever the umask", async () => {
    const before = process.umask(0o077);
    try {
      const file = join(dir, "idx.json");
      await writeFileAtomic(file, "{}", { mode: 0o640 });
      expect((await stat(file)).mode & 0o777).toBe(0o640);
    } finally {
      process.umask(before);
    }
  });

  it("on failure leaves the target untouched and removes its temp file", async () => {
    const target = join(dir, "taken");
    await mkdir(join(target, "child"), { recursive: true }); // a non-empty folder: rename fails
    await expect(writeFileAtomic(target, "x")).rejects.toThrow();
    expect(await readdir(dir)).toEqual(["taken"]);
    expect((await readdir(dir)).some((n) => n.includes(TEMP_MARKER))).toBe(false);
  });
});
