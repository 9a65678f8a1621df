/**
 * Approved MCP server descriptors (`mcp/<name>.json`) as provider entries (pure).
 *
 * The descriptor is re-validated with the server's own parser (`parseMcpDescriptor`): header and
 * env values are only `${VAR}` or `Bearer ${VAR}` references, and they stay references — each
 * target writes them in its tool's own reference syntax and never expands one.
 *
 * Entry name: `<server_name>-<kb>-<name>` (e.g. `cartographer-homelab-grafana`): it says where
 * the server came from, cannot be the cartographer entry `<server_name>` itself, and an entry the
 * user named differently is never touched. It could only equal a per-KB cartographer entry
 * (`<server_name>-<kb>`, older servers) of a KB literally named `<kb>-<name>`; such a descriptor
 * is dropped with a note instead.
 */
import {
  type McpDescriptor,
  parseMcpDescriptor,
} from "../../../common/provisioning/mcp-descriptor.js";
import type { Artifact } from "../types.js";
import { unsafeName } from "./checks.js";

export interface McpEntry {
  /** The entry name in the provider file. */
  entry: string;
  descriptor: McpDescriptor;
  artifact: Artifact;
}

/** `${VAR}` → VAR; `Bearer ${VAR}` → VAR with bearer; anything else → null. */
export function varRef(value: string): { name: string; bearer: boolean } | null {
  const m = /^(Bearer )?\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value);
  return m ? { name: m[2] as string, bearer: m[1] !== undefined } : null;
}

/** The entry name of a descriptor artifact (see the header). */
export function mcpEntryName(serverName: string, a: Artifact): string {
  return `${serverName}-${a.kb}-${a.name}`;
}

/** The descriptors a target may write, with their entry names; notes for the others. */
export function mcpEntries(
  artifacts: readonly Artifact[],
  serverName: string,
): { entries: McpEntry[]; notes: string[] } {
  const entries: McpEntry[] = [];
  const notes: string[] = [];
  const kbs = new Set(artifacts.map((a) => a.kb));
  for (const a of artifacts) {
    if (a.kind !== "mcp") continue;
    const file = a.files[0];
    const parsed = parseMcpDescriptor(file ? file.bytes.toString("utf8") : "");
    if ("error" in parsed) {
      notes.push(`${a.kb}/mcp/${a.name} not written: ${parsed.error}`);
      continue;
    }
    const badKb = unsafeName(a.kb);
    if (badKb) {
      notes.push(
        `${a.kb}/mcp/${a.name} not written: the KB ${badKb.slice(5)}, and it names the entry`,
      );
      continue;
    }
    const entry = mcpEntryName(serverName, a);
    if (entry === serverName || [...kbs].some((kb) => entry === `${serverName}-${kb}`)) {
      notes.push(
        `${a.kb}/mcp/${a.name} not written: its entry name ${entry} is a cartographer entry name`,
      );
      continue;
    }
    entries.push({ entry, descriptor: parsed.descriptor, artifact: a });
  }
  return { entries, notes };
}

/** JSON with object keys sorted at every level: the canonical text of a section. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value as Record<string, unknown>).sort()) {
    out[k] = sortKeys((value as Record<string, unknown>)[k]);
  }
  return out;
}
