/**
 * artifact_manifest and the provisioning read tools against real temp KBs (real git, real files):
 * the KB-root layout, legacy artifacts/ (read, warned once), bundled skills overridden by the KB,
 * exec bits, MCP allow-list, signatures, path rules and authorization filtering.
 */
import { execFileSync } from "node:child_process";
import { chmod, cp, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  artifactContentHash,
  manifestRevision,
  verifyArtifactSignature,
} from "../../../src/common/provisioning/artifact-sign.js";
import type { KbSettings, Visibility } from "../../../src/kb/core/types.js";
import { openKb } from "../../../src/kb/store/store.js";
import type { Logger } from "../../../src/logger.js";
import { KbRuntime } from "../../../src/runtime/kb-runtime.js";
import { openKbIndex } from "../../../src/search/index.js";
import { assetTools } from "../../../src/tools/families/assets.js";
import { provisioningTools } from "../../../src/tools/families/provisioning.js";
import { callTool } from "../../support/call-tool.js";
import { GO_FIXTURE_KB } from "../../support/fixture.js";
import { git } from "../../support/kb.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { expectKbError, makeTempKb, type TempKb, tool } from "../../support/tool-kb.js";

interface WireFile {
  path: string;
  executable: boolean;
  size: number;
  content?: string;
  content_base64?: string;
}
interface WireArtifact {
  kind: string;
  name: string;
  source: string;
  version: string;
  content_hash: string;
  files: WireFile[];
  signature: {
    algorithm: "ed25519";
    key_id: string;
    envelope_version: number;
    value: string;
  } | null;
}
interface Manifest {
  kb: string;
  revision: string;
  signing_key: { key_id: string; public_key: string } | null;
  artifacts: WireArtifact[];
  skipped: { kind: string; name: string; reason: string }[];
}

const TOOLS = [...provisioningTools, ...assetTools];
const SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const MAP_ONLY: Visibility = { all: false, rules: [{ maps: ["infra"], journals: [], types: [] }] };

function bytesOf(f: WireFile): Uint8Array {
  return f.content !== undefined
    ? new TextEncoder().encode(f.content)
    : new Uint8Array(Buffer.from(f.content_base64 ?? "", "base64"));
}

/** What a client does: recompute the hash from the received files. */
function recomputed(a: WireArtifact): string {
  return artifactContentHash(
    a.files.map((f) => ({ path: f.path, executable: f.executable, content: bytesOf(f) })),
  );
}

const find = (m: Manifest, kind: string, name: string) =>
  m.artifacts.find((a) => a.kind === kind && a.name === name);

interface Opened {
  runtime: KbRuntime;
  warnings: string[];
  close: () => void;
}

async function open(root: string, extra: Partial<KbSettings> = {}): Promise<Opened> {
  const warnings: string[] = [];
  const logger: Logger = { info: () => {}, warn: (m) => warnings.push(m), error: () => {} };
  const settings: KbSettings = {
    name: "lab",
    root,
    allowArtifactWrite: true,
    autocommit: true,
    gitAuthor: { name: "t", email: "t@t.invalid" },
    ...extra,
  };
  const store = await openKb(settings, { logger });
  const { index } = await openKbIndex(store);
  return { runtime: new KbRuntime(store, index), warnings, close: () => index.close() };
}

const manifestOf = async (o: Opened, visibility?: Visibility) =>
  (await callTool(o.runtime, tool(TOOLS, "artifact_manifest"), {}, { visibility })) as Manifest;

describe("the Go fixture KB", () => {
  const newDir = useTempDirs("carto-prov-fixture-", "file");
  let o: Opened;
  beforeAll(async () => {
    const root = join(newDir(), "kb");
    await cp(GO_FIXTURE_KB, root, { recursive: true });
    await chmod(root, 0o755);
    execFileSync("chmod", ["-R", "u+w", root]);
    git(root, ["init", "-q", "-b", "main"]);
    git(root, ["add", "-A"]);
    git(root, ["commit", "-q", "-m", "fixture"]);
    o = await open(root);
  });
  afterAll(async () => {
    o.close();
  });

  it("offers the fixture's KB-root skill and the bundled skills, hashes verifiable by a client", async () => {
    const m = await manifestOf(o);
    const skill = find(m, "skill", "kbinfra--query-rete");
    expect(skill).toMatchObject({ source: "kb:lab", version: "1.0", signature: null });
    expect(skill?.files.map((f) => f.path)).toEqual(["SKILL.md"]);
    for (const name of ["cartographer-kb-loop", "kb-create", "kb-import", "kb-conflict-resolve"]) {
      expect(find(m, "skill", name)?.source, name).toBe("bundle");
    }
    for (const a of m.artifacts) expect(recomputed(a), a.name).toBe(a.content_hash);
    expect(m.revision).toBe(
      manifestRevision(m.artifacts.map((a) => ({ ...a, contentHash: a.content_hash }))),
    );
    expect(m.signing_key).toBeNull();
  });
});

describe("KB-root layout", () => {
  const newDir = useTempDirs("carto-prov-outside-", "file");
  let kb: TempKb;
  let o: Opened;
  beforeAll(async () => {
    kb = await makeTempKb({
      files: {
        "skills/deploy/SKILL.md":
          "---\nname: deploy\ndescription: Deploys.\nversion: 2\n---\nSteps\n",
        "skills/deploy/scripts/run.sh": "#!/bin/sh\necho deploy\n",
        "skills/deploy/.hidden": "never listed",
        "skills/no-main/README.md": "no SKILL.md here",
        "skills/Bad_Name/SKILL.md": "---\nname: x\n---\n",
        "skills/cartographer-kb-loop/SKILL.md":
          "---\nname: cartographer-kb-loop\nversion: 9\n---\nKB copy\n",
        "agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews.\n---\nYou review.\n",
        "hooks/fmt/hook.json": '{"event":"PostToolUse","command":"./fmt.sh"}\n',
        "hooks/fmt/fmt.sh": "#!/bin/sh\nexit 0\n",
        "hooks/broken/hook.json": "{not json",
        "mcp/grafana.json":
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${VAR} reference
          '{"type":"http","url":"https://grafana.example/mcp","headers":{"Authorization":"Bearer ${GRAFANA_TOKEN}"}}\n',
        "mcp/leaky.json":
          '{"type":"http","url":"https://x.example/mcp","headers":{"Authorization":"Bearer abc123"}}\n',
        "mcp/files.json": '{"type":"stdio","command":"mcp-files","args":["--ro"]}\n',
        "instructions.md": "Use the lab KB for homelab questions.\n",
        "artifacts/skills/old-skill/SKILL.md": "---\nname: old-skill\n---\nLegacy\n",
        "artifacts/agents/reviewer.md": "---\nname: reviewer\n---\nLegacy copy loses\n",
        "artifacts/notes.txt": "not an artifact layout",
      },
    });
    await chmod(join(kb.root, "skills/deploy/scripts/run.sh"), 0o755);
    await chmod(join(kb.root, "hooks/fmt/fmt.sh"), 0o755);
    await mkdir(join(kb.root, "skills/linked"), { recursive: true });
    await writeFile(join(kb.root, "skills/linked/SKILL.md"), "---\nname: linked\n---\n");
    // The link target lives outside the KB, in a dir of its own (removed after the suite).
    const outside = newDir();
    await writeFile(join(outside, "carto-secret-target.txt"), "TOP-SECRET-OUTSIDE");
    await symlink(join(outside, "carto-secret-target.txt"), join(kb.root, "skills/linked/leak.md"));
    await symlink(join(kb.root, "skills/deploy"), join(kb.root, "skills/twin"));
    o = await open(kb.root, {
      mcpAllowlist: [
        { name: "grafana", transport: "http", target: "HTTPS://grafana.example/mcp" },
        { name: "leaky", transport: "http", target: "https://x.example/mcp" },
      ],
    });
  });
  afterAll(async () => {
    o.close();
    await kb.cleanup();
  });

  it("reads every kind from the KB root with exec bits from the file mode", async () => {
    const m = await manifestOf(o);
    const deploy = find(m, "skill", "deploy");
    expect(deploy?.version).toBe("2");
    expect(deploy?.files.map((f) => [f.path, f.executable])).toEqual([
      ["SKILL.md", false],
      ["scripts/run.sh", true],
    ]);
    expect(find(m, "agent", "reviewer")?.files[0]?.content).toContain("You review.");
    expect(find(m, "hook", "fmt")?.files.map((f) => [f.path, f.executable])).toEqual([
      ["fmt.sh", true],
      ["hook.json", false],
    ]);
    expect(find(m, "instructions", "lab")?.files[0]?.path).toBe("instructions.md");
    expect(m.artifacts.map((a) => `${a.kind}/${a.name}`)).toEqual(
      [...m.artifacts.map((a) => `${a.kind}/${a.name}`)].sort(),
    );
    for (const a of m.artifacts) expect(recomputed(a)).toBe(a.content_hash);
  });

  it("a KB artifact with the same kind+name wins over the bundled one", async () => {
    const loop = find(await manifestOf(o), "skill", "cartographer-kb-loop");
    expect(loop).toMatchObject({ source: "kb:lab", version: "9" });
    expect(loop?.files[0]?.content).toContain("KB copy");
  });

  it("offers MCP descriptors only when allow-listed and valid; says why the others are skipped", async () => {
    const m = await manifestOf(o);
    expect(find(m, "mcp", "grafana")).toBeDefined();
    expect(find(m, "mcp", "files")).toBeUndefined();
    expect(find(m, "mcp", "leaky")).toBeUndefined();
    const reasons = Object.fromEntries(
      m.skipped.filter((s) => s.kind === "mcp").map((s) => [s.name, s.reason]),
    );
    expect(reasons.files).toContain("mcp_allowlist");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal text of the message
    expect(reasons.leaky).toContain("${VAR}");
    expect(JSON.stringify(m.skipped)).not.toContain("abc123");
    const list = (await callTool(o.runtime, tool(TOOLS, "mcp_list"), {})) as {
      items: { name: string }[];
    };
    expect(list.items.map((i) => i.name)).toEqual(["grafana"]);
  });

  it("skips bad names and folders without their main file; never follows a symlink or lists a hidden file", async () => {
    const m = await manifestOf(o);
    const text = JSON.stringify(m);
    expect(text).not.toContain("TOP-SECRET-OUTSIDE");
    expect(text).not.toContain("never listed");
    expect(find(m, "skill", "twin")).toBeUndefined();
    expect(find(m, "skill", "linked")?.files.map((f) => f.path)).toEqual(["SKILL.md"]);
    expect(m.skipped).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "skill", name: "no-main", reason: "no SKILL.md" }),
        expect.objectContaining({ kind: "skill", name: "Bad_Name" }),
        expect.objectContaining({
          kind: "hook",
          name: "broken",
          reason: "hook.json is not a JSON object",
        }),
      ]),
    );
  });

  it("skips whole an artifact with a file over 256 KiB or over 4 MiB in total", async () => {
    await mkdir(join(kb.root, "skills/big-file"), { recursive: true });
    await writeFile(join(kb.root, "skills/big-file/SKILL.md"), "---\nname: big-file\n---\n");
    await writeFile(join(kb.root, "skills/big-file/blob.txt"), "x".repeat(256 * 1024 + 1));
    await mkdir(join(kb.root, "skills/big-total"), { recursive: true });
    await writeFile(join(kb.root, "skills/big-total/SKILL.md"), "---\nname: big-total\n---\n");
    for (let i = 0; i < 17; i++) {
      await writeFile(join(kb.root, `skills/big-total/part${i}.txt`), "y".repeat(256 * 1024));
    }
    try {
      const m = await manifestOf(o);
      expect(find(m, "skill", "big-file")).toBeUndefined();
      expect(find(m, "skill", "big-total")).toBeUndefined();
      const reasons = m.skipped.filter((s) => s.name.startsWith("big-")).map((s) => s.reason);
      expect(reasons).toEqual([
        expect.stringContaining("over 262144 bytes"),
        expect.stringContaining("in total"),
      ]);
    } finally {
      await rm(join(kb.root, "skills/big-file"), { recursive: true });
      await rm(join(kb.root, "skills/big-total"), { recursive: true });
    }
  });

  it("still reads the legacy artifacts/ folder (root copy wins) and warns once", async () => {
    const m = await manifestOf(o);
    expect(find(m, "skill", "old-skill")?.source).toBe("kb:lab");
    expect(find(m, "agent", "reviewer")?.files[0]?.content).not.toContain("Legacy");
    await manifestOf(o);
    const legacy = o.warnings.filter((w) => w.includes("legacy artifacts/"));
    expect(legacy).toHaveLength(1);
    expect(legacy[0]).not.toContain(kb.root);
  });

  it("a principal restricted to maps sees only the bundled artifacts, and no KB name leaks", async () => {
    const m = await manifestOf(o, MAP_ONLY);
    expect(m.artifacts.every((a) => a.source === "bundle")).toBe(true);
    expect(find(m, "skill", "cartographer-kb-loop")?.source).toBe("bundle");
    expect(m.skipped).toEqual([]);
    const text = JSON.stringify(m);
    for (const secretName of ["deploy", "reviewer", "grafana", "old-skill", "Bad_Name"]) {
      expect(text).not.toContain(secretName);
    }
    await expectKbError(
      () =>
        callTool(o.runtime, tool(TOOLS, "skill_get"), { name: "deploy" }, { visibility: MAP_ONLY }),
      "not_found",
    );
  });

  it("skill_get returns the effective skill; agent_list and hook_list list their kinds", async () => {
    const got = (await callTool(o.runtime, tool(TOOLS, "skill_get"), { name: "deploy" })) as {
      files: WireFile[];
      source: string;
    };
    expect(got.source).toBe("kb:lab");
    expect(got.files.map((f) => f.path)).toEqual(["SKILL.md", "scripts/run.sh"]);
    const agents = (await callTool(o.runtime, tool(TOOLS, "agent_list"), {})) as {
      items: { name: string; description: string }[];
    };
    expect(agents.items).toEqual([
      expect.objectContaining({ name: "reviewer", description: "Reviews." }),
    ]);
    const hooks = (await callTool(o.runtime, tool(TOOLS, "hook_list"), {})) as { total: number };
    expect(hooks.total).toBe(1);
    await expectKbError(
      () => callTool(o.runtime, tool(TOOLS, "skill_get"), { name: "nope" }),
      "not_found",
    );
  });

  it("artifact_write writes KB-root artifact paths and refuses anything else", async () => {
    await callTool(o.runtime, tool(TOOLS, "artifact_write"), {
      path: "skills/fresh/SKILL.md",
      content: "---\nname: fresh\n---\nNew\n",
    });
    expect(find(await manifestOf(o), "skill", "fresh")?.source).toBe("kb:lab");
    for (const path of [
      "report.txt",
      "data/x.md",
      "skills",
      "../skills/x",
      "skills/.x/SKILL.md",
      "artifacts/skills/y/SKILL.md",
    ]) {
      await expectKbError(
        () => callTool(o.runtime, tool(TOOLS, "artifact_write"), { path, content: "x" }),
        "invalid_argument",
      );
    }
  });
});

describe("signed artifacts", () => {
  let kb: TempKb;
  let o: Opened;
  beforeAll(async () => {
    kb = await makeTempKb({
      files: { "skills/deploy/SKILL.md": "---\nname: deploy\nversion: 1\n---\nSteps\n" },
    });
    o = await open(kb.root, { artifactSigningSeed: SEED });
  });
  afterAll(async () => {
    o.close();
    await kb.cleanup();
  });

  it("signs every kb: artifact (never bundled ones) with a key id = sha256(public key)", async () => {
    const m = await manifestOf(o);
    expect(m.signing_key?.public_key).toBe(
      "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    );
    for (const a of m.artifacts) {
      if (a.source === "bundle") {
        expect(a.signature).toBeNull();
        continue;
      }
      const id = { source: a.source, kind: a.kind, name: a.name, version: a.version };
      const pub = m.signing_key?.public_key as string;
      expect(verifyArtifactSignature(pub, { ...id, contentHash: recomputed(a) }, a.signature)).toBe(
        true,
      );
      // A client that received tampered bytes recomputes another hash: the signature fails.
      const tampered = a.files.map((f) => ({ ...f, content: `${f.content}x` }));
      const bad = recomputed({ ...a, files: tampered });
      expect(verifyArtifactSignature(pub, { ...id, contentHash: bad }, a.signature)).toBe(false);
    }
    expect(find(m, "skill", "deploy")?.signature?.key_id).toBe(m.signing_key?.key_id);
    expect(m.revision).toBe(
      manifestRevision(
        m.artifacts.map((a) => ({
          ...a,
          contentHash: a.content_hash,
          keyId: a.signature?.key_id ?? "",
        })),
      ),
    );
  });
});
