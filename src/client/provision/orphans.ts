/**
 * Lockfile entries no saved provider binding owns: a provider removed from `.cartographer.yaml`
 * by hand (or its scope / project directory edited) leaves its records and files behind. They
 * are ours, so nothing else will ever clean them; they are not the yaml's, so a sync must not
 * guess. status reports them (exit 1), sync says so once and leaves them, and
 * `cartographer disconnect <provider>` removes them (docs/client.md, docs/decisions.md).
 */

import type { ClientConfig, ProviderBinding } from "../config.js";
import { type CommandIo, tilde } from "../lib/io.js";
import { splitLock } from "./lock-parts.js";
import type { BindingKey, BindingLock, Lockfile } from "./lockfile.js";
import { bindingKey, renderContext } from "./provision.js";

const sameKey = (a: BindingKey, b: BindingKey) =>
  a.provider === b.provider && a.scope === b.scope && a.dir === b.dir;

/** The key a saved binding's records are filed under. */
export function keyOf(io: CommandIo, config: ClientConfig, b: ProviderBinding): BindingKey {
  return bindingKey(renderContext(io, config, b), b.name);
}

/** Lock entries owned by neither a saved provider nor one of `running` (about to be saved). */
export function orphanedLocks(
  io: CommandIo,
  config: ClientConfig,
  lock: Lockfile,
  running: readonly ProviderBinding[] = [],
): BindingLock[] {
  const owned = [...config.providers, ...running].map((b) => keyOf(io, config, b));
  // Connect's own records (its entry, its block) alone make no orphan: status and disconnect
  // find those from the provider files, as they always did (lock-parts.ts).
  return lock.bindings
    .filter((l) => !owned.some((k) => sameKey(k, l)))
    .map((l) => splitLock(l).artifacts)
    .filter((l): l is BindingLock => l !== undefined);
}

/** The binding that reaches a lock entry's records again (disconnect of an orphan). */
export function bindingOfLock(l: BindingLock): ProviderBinding {
  return l.scope === "project"
    ? { name: l.provider, scope: "project", project_dir: l.dir }
    : { name: l.provider, scope: "user" };
}

export interface OrphanJson {
  provider: string;
  scope: string;
  /** The project directory (tilde) for a project binding. */
  dir?: string;
  files: number;
  sections: number;
  message: string;
}

/** One line naming the orphan and the fix. */
export function describeOrphan(io: CommandIo, l: BindingLock): OrphanJson {
  const where = l.scope === "project" ? `project scope, ${tilde(io, l.dir)}` : "user scope";
  const what = `${l.files.length} file(s), ${l.sections.length} section(s)`;
  return {
    provider: l.provider,
    scope: l.scope,
    ...(l.scope === "project" ? { dir: tilde(io, l.dir) } : {}),
    files: l.files.length,
    sections: l.sections.length,
    message: `${l.provider} (${where}) is no longer in .cartographer.yaml, but the lockfile still records its artifacts (${what}), left as they are: run cartographer disconnect ${l.provider} to remove them, or cartographer connect ${l.provider}${l.scope === "project" ? " --scope project in that directory" : ""} to manage them again`,
  };
}
