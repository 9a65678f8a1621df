/** `.cartographer.yaml`: unknown keys and comments survive a save, written atomically. */
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, saveConfig } from "../../src/client/config.js";
import { useTempDirs } from "../support/temp-dir.js";

describe(".cartographer.yaml", () => {
  const newDir = useTempDirs("carto-yaml-");
  it("keeps unknown keys and comments, writes atomically", async () => {
    const dir = newDir();
    const file = path.join(dir, ".cartographer.yaml");
    await fs.writeFile(
      file,
      "# my settings\nserver_url: http://h:1/mcp\nfavourite: blue # keep me\nproviders:\n  - name: claude\n    note: mine\n",
    );
    const loaded = await loadConfig(file);
    expect(loaded.config.server_name).toBe("cartographer");
    await saveConfig(loaded, {
      ...loaded.config,
      token_env: "TOK",
      server_mount_mode: "routed",
      providers: [{ name: "claude", kbs: ["a"] }],
    });
    const text = await fs.readFile(file, "utf8");
    expect(text).toContain("# my settings");
    expect(text).toContain("favourite: blue # keep me");
    expect(text).toContain("note: mine");
    const again = await loadConfig(file);
    expect(again.config).toMatchObject({
      token_env: "TOK",
      server_mount_mode: "routed",
      providers: [{ name: "claude", kbs: ["a"] }],
    });
    expect((await fs.readdir(dir)).filter((f) => f.includes("tmp"))).toEqual([]);
    await fs.writeFile(file, "providers:\n  - name: vim\n");
    await expect(loadConfig(file)).rejects.toThrow(/providers\[0\]\.name/);
  });
});
