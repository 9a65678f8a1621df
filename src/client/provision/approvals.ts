/**
 * MCP server descriptors on the client side: what `cartographer approve` shows and stores, and
 * what the trust gate checks. A descriptor reaches an agent tool only with the server's
 * `mcp_allowlist` AND the user's approval of that exact descriptor (`{kb, name, content_hash}`
 * in `.cartographer.yaml`): a changed descriptor needs a new approval.
 *
 * Nothing here runs a command or expands a `${VAR}`: a stdio command is only looked up (on the
 * PATH given, or as an absolute path), and env/header values are never shown, only their names.
 */
import { statSync } from "node:fs";
import path from "node:path";
import type { ClientConfig, McpApproval } from "../config.js";
import { printable } from "./manifest-shape.js";
import type { Artifact } from "./types.js";

/** What a user needs to judge a descriptor: transport, target, and the NAMES of env/headers. */
export interface DescriptorView {
  type: "http" | "stdio";
  /** http: the URL. */
  url?: string;
  /** stdio: the bare command name or absolute path, and its arguments. */
  command?: string;
  args?: string[];
  /** Names of the env variables (stdio) or headers (http) it sets; values are never shown. */
  envNames: string[];
  headerNames: string[];
}

const strings = (v: unknown): v is Record<string, string> =>
  typeof v === "object" &&
  v !== null &&
  !Array.isArray(v) &&
  Object.values(v).every((x) => typeof x === "string");

/** Reads an `mcp` artifact's descriptor; `{ error }` when it is not one the client can place. */
export function readDescriptor(artifact: Artifact): { view: DescriptorView } | { error: string } {
  const file = artifact.files[0];
  let raw: unknown;
  try {
    raw = JSON.parse(file ? file.bytes.toString("utf8") : "");
  } catch {
    return { error: "the descriptor is not valid JSON" };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { error: "the descriptor is not a JSON object" };
  }
  const o = raw as Record<string, unknown>;
  if (o.headers !== undefined && !strings(o.headers)) return { error: "headers must be strings" };
  if (o.env !== undefined && !strings(o.env)) return { error: "env must be strings" };
  const names = (v: unknown) => Object.keys((v as Record<string, string> | undefined) ?? {});
  if (o.type === "http") {
    if (typeof o.url !== "string") return { error: "an http descriptor needs a url" };
    return {
      view: { type: "http", url: o.url, envNames: [], headerNames: names(o.headers) },
    };
  }
  if (o.type === "stdio") {
    if (typeof o.command !== "string" || o.command === "") {
      return { error: "a stdio descriptor needs a command" };
    }
    const args = o.args;
    if (args !== undefined && (!Array.isArray(args) || args.some((a) => typeof a !== "string"))) {
      return { error: "its args are not a list of strings" };
    }
    return {
      view: {
        type: "stdio",
        command: o.command,
        ...(args !== undefined ? { args: args as string[] } : {}),
        envNames: names(o.env),
        headerNames: [],
      },
    };
  }
  return { error: "its type is neither http nor stdio" };
}

/** One line per fact of a descriptor, for the terminal (names only, printable). */
export function describeDescriptor(view: DescriptorView): string[] {
  const lines = [`transport: ${view.type}`];
  if (view.url !== undefined) lines.push(`url: ${printable(view.url)}`);
  if (view.command !== undefined) lines.push(`command: ${printable(view.command)}`);
  if (view.args && view.args.length > 0) {
    lines.push(`args: ${view.args.map((a) => JSON.stringify(printable(a))).join(" ")}`);
  }
  if (view.envNames.length > 0)
    lines.push(`env (names): ${view.envNames.map(printable).join(", ")}`);
  if (view.headerNames.length > 0) {
    lines.push(`headers (names): ${view.headerNames.map(printable).join(", ")}`);
  }
  return lines;
}

export type ApprovalState = "approved" | "missing" | "changed";

/** Whether the user approved this exact descriptor (same KB, name and content hash). */
export function approvalState(
  approvals: readonly McpApproval[] | undefined,
  artifact: Pick<Artifact, "kb" | "name" | "contentHash">,
): ApprovalState {
  const mine = (approvals ?? []).filter((a) => a.kb === artifact.kb && a.name === artifact.name);
  if (mine.length === 0) return "missing";
  return mine.some((a) => a.content_hash === artifact.contentHash) ? "approved" : "changed";
}

/** `config` with the approval of `{kb, name}` set to `contentHash` (any older one replaced). */
export function withApproval(
  config: ClientConfig,
  kb: string,
  name: string,
  contentHash: string,
): ClientConfig {
  const others = (config.approvals ?? []).filter((a) => a.kb !== kb || a.name !== name);
  return { ...config, approvals: [...others, { kb, name, content_hash: contentHash }] };
}

/** `config` without the approval of `{kb, name}`, and whether there was one. */
export function withoutApproval(
  config: ClientConfig,
  kb: string,
  name: string,
): { config: ClientConfig; removed: boolean } {
  const before = config.approvals ?? [];
  const approvals = before.filter((a) => a.kb !== kb || a.name !== name);
  return { config: { ...config, approvals }, removed: approvals.length !== before.length };
}

function isExecutableFile(file: string): boolean {
  try {
    const st = statSync(file);
    // Any execute bit: whether this user may run it is for the agent tool to find out.
    return st.isFile() && (st.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/**
 * Why a stdio descriptor's command cannot be found, or null when it can: an absolute path must
 * be an executable file; a bare name must be one in a directory of `env.PATH`. Looked up only,
 * never run.
 */
export function commandProblem(
  command: string,
  env: Record<string, string | undefined>,
): string | null {
  if (path.isAbsolute(command)) {
    return isExecutableFile(command)
      ? null
      : `${printable(command)} is not an executable file here`;
  }
  if (command.includes("/") || command.includes("\\")) {
    return `${printable(command)} is neither a bare command name nor an absolute path`;
  }
  const dirs = (env.PATH ?? "").split(path.delimiter).filter((d) => path.isAbsolute(d));
  if (dirs.some((d) => isExecutableFile(path.join(d, command)))) return null;
  return `command ${printable(command)} is not on PATH; install it, then sync again`;
}
