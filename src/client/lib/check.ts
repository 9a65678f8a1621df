import { readTextOrNull } from "../atomic-file.js";
import type { ClientConfig } from "../config.js";
import { ClientError } from "../errors.js";
import { hasBlock } from "../instructions.js";
import type { ProviderPlan } from "../provision/provider-plan.js";
import { isOwnedEntry } from "../topology.js";

export type ProviderState = "in-sync" | "partial" | "missing";

export interface ProviderCheck {
  provider: string;
  scope: string;
  file: string;
  state: ProviderState;
  /** Expected entries absent from the file. */
  missing: string[];
  /** Expected entries present but different from what connect writes. */
  stale: string[];
  /** Entries the client owns that the live shape does not expect (orphans). */
  orphans: string[];
  instructions: boolean;
  /** Set when the file could not be read or parsed. */
  error?: string;
}

/**
 * Compares a provider's file with its plan: in-sync (every expected entry as written, no
 * orphan, instructions block present), missing (no expected entry name present at all), or
 * partial (anything in between).
 */
export async function checkProvider(
  plan: ProviderPlan,
  config: ClientConfig,
): Promise<ProviderCheck> {
  const { adapter, files } = plan;
  const base = {
    provider: adapter.id,
    scope: plan.scope,
    file: files.config,
    missing: [] as string[],
    stale: [] as string[],
    orphans: [] as string[],
    instructions: false,
  };
  try {
    const text = await readTextOrNull(files.config);
    const present = adapter.listEntries(text, files.config);
    for (const entry of plan.entries) {
      if (!present.has(entry.name)) base.missing.push(entry.name);
      else if (!adapter.entryMatches(text, files.config, entry, plan.auth))
        base.stale.push(entry.name);
    }
    const expected = new Set(plan.entries.map((e) => e.name));
    for (const [name, url] of present) {
      if (!expected.has(name) && isOwnedEntry(config.server_name, name, url))
        base.orphans.push(name);
    }
    base.instructions = hasBlock(
      await readTextOrNull(files.instructions),
      config.server_name,
      adapter.id,
    );
  } catch (err) {
    const message = err instanceof ClientError ? err.message : String(err);
    return { ...base, state: "partial", error: message };
  }
  const found = plan.entries.length - base.missing.length;
  let state: ProviderState;
  if (
    base.missing.length === 0 &&
    base.stale.length === 0 &&
    base.orphans.length === 0 &&
    base.instructions
  ) {
    state = "in-sync";
  } else if (found === 0 && plan.entries.length > 0) {
    state = "missing";
  } else {
    state = "partial";
  }
  return { ...base, state };
}

export function describeCheck(c: ProviderCheck): string {
  const parts: string[] = [];
  if (c.error) parts.push(c.error);
  if (c.missing.length) parts.push(`missing ${c.missing.join(", ")}`);
  if (c.stale.length) parts.push(`stale ${c.stale.join(", ")}`);
  if (c.orphans.length) parts.push(`orphaned ${c.orphans.join(", ")}`);
  if (!c.instructions) parts.push("no instructions block");
  return `${c.provider} (${c.scope}): ${c.state}${parts.length ? ` — ${parts.join("; ")}` : ""}`;
}
