/**
 * Whether Claude Code has approved the project-scope servers of a project's `.mcp.json`.
 * Claude Code asks once per project before it uses them; until then `claude mcp list` shows
 * them "Pending approval" and the session has none of their tools. The choice lives in the
 * settings files: `enableAllProjectMcpServers: true`, or the server's name in
 * `enabledMcpjsonServers` (rejected: `disabledMcpjsonServers`), in the project's
 * `.claude/settings.local.json` or `.claude/settings.json`, or the user's
 * `~/.claude/settings.json`; older versions kept the same keys under `projects["<dir>"]` in
 * `~/.claude.json`. Checked against Claude Code 2.1.197 (`claude mcp list`, sandbox $HOME).
 */
import path from "node:path";
import { readTextOrNull } from "./atomic-file.js";

export type ClaudeApproval = "approved" | "pending" | "rejected";

interface ApprovalKeys {
  enableAllProjectMcpServers?: unknown;
  enabledMcpjsonServers?: unknown;
  disabledMcpjsonServers?: unknown;
}

async function readJson(file: string): Promise<Record<string, unknown> | undefined> {
  try {
    const text = await readTextOrNull(file);
    if (text === null) return undefined;
    const value = JSON.parse(text.replace(/^\uFEFF/, "")) as unknown;
    return value !== null && typeof value === "object"
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined; // an unreadable settings file approves nothing
  }
}

const has = (list: unknown, name: string) => Array.isArray(list) && list.includes(name);

/** The approval state of every name in `servers` (all must be approved to count as approved). */
export async function claudeProjectApproval(
  projectDir: string,
  home: string,
  servers: string[],
): Promise<ClaudeApproval> {
  const dir = path.resolve(projectDir);
  const sources: ApprovalKeys[] = [];
  for (const file of [
    path.join(dir, ".claude", "settings.local.json"),
    path.join(dir, ".claude", "settings.json"),
    path.join(home, ".claude", "settings.json"),
  ]) {
    const doc = await readJson(file);
    if (doc) sources.push(doc);
  }
  const legacy = (await readJson(path.join(home, ".claude.json")))?.projects as
    | Record<string, ApprovalKeys>
    | undefined;
  const legacyEntry = legacy?.[dir];
  if (legacyEntry && typeof legacyEntry === "object") sources.push(legacyEntry);
  if (servers.some((s) => sources.some((src) => has(src.disabledMcpjsonServers, s)))) {
    return "rejected";
  }
  const approved = (s: string) =>
    sources.some(
      (src) => src.enableAllProjectMcpServers === true || has(src.enabledMcpjsonServers, s),
    );
  return servers.every(approved) ? "approved" : "pending";
}
