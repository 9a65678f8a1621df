import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Visibility } from "../../../src/kb/core/types.js";
import { readTools } from "../../../src/tools/families/read.js";
import { callTool } from "../../support/call-tool.js";
import { makeTempKb, type TempKb, tool } from "../../support/tool-kb.js";

type Result = { match: string; results: { id: string; snippet: string }[] };

let kb: TempKb;
const search = (args: Record<string, unknown>, visibility?: Visibility) =>
  callTool(kb.runtime, tool(readTools, "search"), args, { visibility }) as Promise<Result>;

beforeAll(async () => {
  const note = (title: string, body: string, type = "note") =>
    `---\ntype: ${type}\ntitle: ${title}\n---\n${body}\n`;
  kb = await makeTempKb({
    files: {
      "data/travel/_map.md": "---\ntype: Map\ntitle: Travel\nkind: map\n---\n",
      "data/travel/tokyo.md": note("Tokyo", "東京タワーは観光地です。"),
      "data/travel/secret.md": note("Hidden", "秘密のタワー", "private"),
      "data/ops/_map.md": "---\ntype: Map\ntitle: Ops\nkind: map\n---\n",
      "data/ops/backup.md": note("Backups", "Nightly snapshots of every volume."),
    },
  });
});
afterAll(() => kb.cleanup());

describe("search falls back to a substring match only when the index finds nothing", () => {
  it("finds text without spaces (CJK) and fragments inside words", async () => {
    const cjk = await search({ query: "タワー" });
    expect(cjk.match).toBe("substring");
    expect(cjk.results.map((r) => r.id).sort()).toEqual(["travel/secret", "travel/tokyo"]);
    const fragment = await search({ query: "napshot" });
    expect(fragment).toMatchObject({ match: "substring", results: [{ id: "ops/backup" }] });
    expect(fragment.results[0]?.snippet).toContain("snapshots");
  });

  it("is not used when the index has hits, and honours scope and limit", async () => {
    expect((await search({ query: "snapshots" })).match).not.toBe("substring");
    expect((await search({ query: "タワー", scope: "ops" })).results).toEqual([]);
    expect((await search({ query: "タワー", limit: 1 })).results).toHaveLength(1);
    expect(await search({ query: "zzqx" })).toMatchObject({ match: "none", results: [] });
  });

  it("never shows a concept the caller cannot see", async () => {
    const onlyTokyo = {
      all: false as const,
      rules: [{ maps: ["travel"], journals: [], types: ["note"] }],
    };
    expect((await search({ query: "タワー" }, onlyTokyo)).results.map((r) => r.id)).toEqual([
      "travel/tokyo",
    ]);
    const opsOnly = { all: false as const, rules: [{ maps: ["ops"], journals: [], types: [] }] };
    expect((await search({ query: "タワー" }, opsOnly)).results).toEqual([]);
  });
});
