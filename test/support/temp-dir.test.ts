import { existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir, useTempDirs } from "./temp-dir.js";

describe("useTempDirs removes each test's directories after it", () => {
  const sandbox = useTempDirs("carto-support-");
  let made = "";

  it("makes a fresh, writable directory under the OS temp dir", () => {
    made = sandbox();
    expect(made.startsWith(join(tmpdir(), "carto-support-"))).toBe(true);
    writeFileSync(join(made, "f"), "x");
    expect(sandbox()).not.toBe(made);
  });

  it("the previous test's directory is gone", () => {
    expect(made).not.toBe("");
    expect(existsSync(made)).toBe(false);
  });
});

describe("useTempDirs with file scope keeps directories until the file's tests end", () => {
  const shared = useTempDirs("carto-support-file-", "file");
  let made = "";

  it("makes one", () => {
    made = shared();
  });

  it("it still exists in the next test", () => {
    expect(existsSync(made)).toBe(true);
  });
});

describe("tempDir hands out its own cleanup", () => {
  it("removes the directory and what is in it", () => {
    const t = tempDir("carto-support-own-");
    writeFileSync(join(t.dir, "f"), "x");
    t.cleanup();
    expect(existsSync(t.dir)).toBe(false);
  });
});
