/**
 * The provisioning e2e suites: the built binary (`npm run build` first) serves a copy of the Go
 * fixture KB (which has `skills/`), and every client command runs through the same binary with
 * a sandbox $HOME. Written files are parsed back with real parsers (JSON, TOML, YAML).
 */
import { execFileSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { GO_FIXTURE_KB } from "../../support/fixture.js";
import { cleanEnv, GIT_ENV, type RunningServer, startServer } from "../helpers.js";

export const FIXTURE_SKILL = "kbinfra--query-rete";

/** Where each provider's user-scope skill folder is (docs/client.md, provisioning targets). */
export const SKILL_DIRS: Record<string, string> = {
  claude: ".claude/skills",
  codex: ".agents/skills",
  opencode: ".config/opencode/skills",
  kiro: ".kiro/skills",
  antigravity: ".gemini/config/skills",
};

export function git(cwd: string, args: string[]): string {
  return execFileSync("git", args, { cwd, env: { ...process.env, ...GIT_ENV } }).toString();
}

/** A git copy of the fixture KB at `<dir>/kbs/homelab`, plus `extra` files, committed. */
export function fixtureKb(dir: string, extra: Record<string, string> = {}): string {
  const kb = join(dir, "kbs", "homelab");
  cpSync(GO_FIXTURE_KB, kb, { recursive: true });
  execFileSync("chmod", ["-R", "u+w", kb]);
  for (const [rel, text] of Object.entries(extra)) {
    execFileSync("mkdir", ["-p", join(kb, rel, "..")]);
    writeFileSync(join(kb, rel), text);
  }
  git(kb, ["init", "-q", "-b", "main"]);
  git(kb, ["add", "-A"]);
  git(kb, ["commit", "-q", "-m", "fixture"]);
  return kb;
}

/** Serves `<dir>/kbs/homelab` with the given extra per-KB YAML lines (indented 4). */
export function serveFixture(dir: string, kbLines: string[], port = 0): Promise<RunningServer> {
  writeFileSync(
    join(dir, "server.yaml"),
    ["kbs:", "  - path: kbs/homelab", ...kbLines.map((l) => `    ${l}`), ""].join("\n"),
  );
  return startServer(["--config", "server.yaml", "--http", `127.0.0.1:${port}`], {
    cwd: dir,
    env: cleanEnv(GIT_ENV),
  });
}

export { cli } from "./helpers.js";

interface LockFile {
  version: number;
  bindings: {
    provider: string;
    scope: string;
    dir: string;
    revisions: Record<string, string>;
    files: { path: string; sha256: string; executable: boolean; origin: string }[];
    sections: { file: string; id: string; sha256: string }[];
    dirs: string[];
  }[];
}

export function readLock(home: string): LockFile {
  return JSON.parse(readFileSync(join(home, ".cartographer-sync.lock.json"), "utf8"));
}

/**
 * Parses a written file with the parser its kind needs; throws on a file that does not parse.
 * Markdown with frontmatter returns the frontmatter object.
 */
export function parseWritten(file: string): unknown {
  const text = readFileSync(file, "utf8");
  if (file.endsWith(".json")) return JSON.parse(text);
  if (file.endsWith(".toml")) return parseToml(text);
  if (file.endsWith(".md") && text.startsWith("---\n")) {
    const end = text.indexOf("\n---", 4);
    if (end < 0) throw new Error(`${file}: frontmatter without its closing ---`);
    return parseYaml(text.slice(4, end));
  }
  return text;
}

/** Every regular file under `dir` (relative path → mtime + bytes), for before/after snapshots. */
export function snapshotTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const p = join(entry.parentPath, entry.name);
    // mtime too: "nothing written" means no file was even rewritten with the same bytes.
    out.set(p.slice(dir.length), `${statSync(p).mtimeMs} ${readFileSync(p).toString("base64")}`);
  }
  return out;
}

/** Writes a KB artifact through the server's `artifact_write` tool (the KB allows it); throws on a tool error. */
export async function writeArtifact(
  serverUrl: string,
  path: string,
  content: string,
): Promise<void> {
  const client = new Client({ name: "e2e", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${serverUrl}/mcp/routed`)));
  try {
    const r = await client.callTool({ name: "artifact_write", arguments: { path, content } });
    if (r.isError) throw new Error(`artifact_write ${path} failed: ${JSON.stringify(r.content)}`);
  } finally {
    await client.close();
  }
}
