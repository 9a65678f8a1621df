/**
 * The server keeps each KB's built manifest while the artifact tree's stamp holds
 * (src/kb/store/artifact-stamp.ts): every change to the artifact folders — a tool write, an edit made
 * beside the server, a replaced folder — shows in the next manifest, and `known_revision` equal to
 * the current revision answers `unchanged` without artifacts. Real temp KBs, real files.
 */
import { rename, rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { artifactTreeStamp, RACY_MS } from "../../../src/kb/store/artifact-stamp.js";
import { assetTools } from "../../../src/tools/families/assets.js";
import { provisioningTools } from "../../../src/tools/families/provisioning.js";
import { callTool } from "../../support/call-tool.js";
import { callHandlerDirectly, makeTempKb, type TempKb, tool } from "../../support/tool-kb.js";

const TOOLS = [...provisioningTools, ...assetTools];
const SKILL = "---\nname: deploy\ndescription: Deploys.\nversion: 1\n---\nStep AAAA\n";

interface Manifest {
  revision: string;
  unchanged?: boolean;
  artifacts?: { kind: string; name: string; files: { path: string; content?: string }[] }[];
}

const manifest = async (kb: TempKb, args: Record<string, unknown> = {}) =>
  (await callTool(kb.runtime, tool(TOOLS, "artifact_manifest"), args)) as Manifest;

const skillText = (m: Manifest, file = "SKILL.md") =>
  m.artifacts
    ?.find((a) => a.kind === "skill" && a.name === "deploy")
    ?.files.find((f) => f.path === file)?.content;

describe("artifact_manifest cache", () => {
  let kb: TempKb;
  beforeEach(async () => {
    kb = await makeTempKb({
      files: { "skills/deploy/SKILL.md": SKILL, "skills/deploy/notes.md": "n1\n" },
      allowArtifactWrite: true,
    });
  });
  afterEach(async () => {
    await kb.cleanup();
  });

  it("serves an unchanged KB from the cache (the same built artifacts)", async () => {
    // The handler's own value: through the pipeline each answer is rendered, so never the same object.
    const direct = async () =>
      (await callHandlerDirectly(kb.runtime, tool(TOOLS, "artifact_manifest"), {})) as Manifest;
    const a = await direct();
    const b = await direct();
    expect(b.revision).toBe(a.revision);
    expect(b.artifacts).toBe(a.artifacts);
  });

  it("shows an out-of-band same-size edit made right after the last manifest (racy window)", async () => {
    const before = await manifest(kb);
    await writeFile(join(kb.root, "skills/deploy/SKILL.md"), SKILL.replace("AAAA", "BBBB"));
    const after = await manifest(kb);
    expect(skillText(after)).toContain("Step BBBB");
    expect(after.revision).not.toBe(before.revision);
  });

  it(
    "shows an out-of-band same-size edit of a file older than the racy window (metadata only)",
    async () => {
      await new Promise((r) => setTimeout(r, RACY_MS + 200));
      const before = await manifest(kb);
      expect(await manifest(kb)).toMatchObject({ revision: before.revision });
      await writeFile(join(kb.root, "skills/deploy/notes.md"), "n2\n");
      const after = await manifest(kb);
      expect(skillText(after, "notes.md")).toBe("n2\n");
      expect(after.revision).not.toBe(before.revision);
    },
    RACY_MS + 20_000,
  );

  it("shows a file added, a folder replaced (a pull) and a skill removed", async () => {
    await manifest(kb);
    await writeFile(join(kb.root, "skills/deploy/extra.md"), "x\n");
    expect(skillText(await manifest(kb), "extra.md")).toBe("x\n");
    const fresh = join(kb.root, "skills/deploy.new");
    await rename(join(kb.root, "skills/deploy"), fresh);
    await rename(fresh, join(kb.root, "skills/deploy"));
    await writeFile(join(kb.root, "skills/deploy/SKILL.md"), SKILL.replace("AAAA", "CCCC"));
    expect(skillText(await manifest(kb))).toContain("Step CCCC");
    await rm(join(kb.root, "skills/deploy"), { recursive: true });
    expect(skillText(await manifest(kb))).toBeUndefined();
  });

  it("shows a write through artifact_write", async () => {
    await manifest(kb);
    await callTool(kb.runtime, tool(TOOLS, "artifact_write"), {
      path: "skills/deploy/SKILL.md",
      content: SKILL.replace("AAAA", "DDDD"),
    });
    expect(skillText(await manifest(kb))).toContain("Step DDDD");
  });

  it("answers known_revision equal to the current revision with unchanged and no artifacts", async () => {
    const full = await manifest(kb);
    const same = await manifest(kb, { known_revision: full.revision });
    expect(same).toEqual({ kb: kb.settings.name, revision: full.revision, unchanged: true });
    const other = await manifest(kb, { known_revision: "0".repeat(64) });
    expect(other.artifacts).toEqual(full.artifacts);
    await writeFile(join(kb.root, "skills/deploy/SKILL.md"), SKILL.replace("AAAA", "EEEE"));
    const changed = await manifest(kb, { known_revision: full.revision });
    expect(changed.unchanged).toBeUndefined();
    expect(skillText(changed)).toContain("Step EEEE");
  });
});

describe("artifactTreeStamp", () => {
  let kb: TempKb;
  beforeEach(async () => {
    kb = await makeTempKb({ files: { "skills/deploy/SKILL.md": SKILL } });
  });
  afterEach(async () => {
    await kb.cleanup();
  });
  // `now` far ahead: nothing is racy, so only metadata decides.
  const stamp = () =>
    artifactTreeStamp(kb.root, { legacy: true, instructions: true, now: Date.now() + 60_000 });

  it("changes with a file's timestamps, a new file and instructions.md, not with a concept", async () => {
    const file = join(kb.root, "skills/deploy/SKILL.md");
    const seen = new Set([stamp()]);
    await utimes(file, new Date(2_000_000_000_000), new Date(1_900_000_000_000));
    seen.add(stamp());
    await writeFile(join(kb.root, "skills/deploy/more.md"), "m\n");
    seen.add(stamp());
    await writeFile(join(kb.root, "instructions.md"), "Use the KB.\n");
    seen.add(stamp());
    await writeFile(join(kb.root, "data/other.md"), "---\ntype: Note\n---\nnot an artifact\n");
    const unrelated = stamp();
    expect(seen.has(unrelated)).toBe(true);
    expect(seen.size).toBe(4);
  });

  it("gives no stamp while more than 1 MiB of artifact files are fresh (read once, by the scan)", async () => {
    for (let i = 0; i < 5; i++) {
      await writeFile(join(kb.root, `skills/deploy/big-${i}.md`), "x".repeat(256 * 1024));
    }
    expect(artifactTreeStamp(kb.root, { legacy: true, instructions: true })).toBeNull();
    expect(stamp()).not.toBeNull();
  });
});
