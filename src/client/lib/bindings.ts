/**
 * Which provider bindings a command acts on, checked against the server before anything is
 * fetched or written.
 */
import {
  isProviderId,
  PROVIDER_IDS,
  type ProviderBinding,
  type ProviderId,
  type Scope,
} from "../config.js";
import { ConfigError } from "../errors.js";
import type { ServerHealth } from "../health.js";
import { PROVIDERS } from "../provision/targets/index.js";
import { type CommandIo, loggerFor } from "./io.js";

function hasProjectScope(id: ProviderId): boolean {
  try {
    PROVIDERS[id].paths("project", "/", "/");
    return true;
  } catch {
    return false;
  }
}

/** Resolves `[provider…|all]` against the yaml; "all" skips providers without the scope. */
export function selectProviders(
  names: string[] | undefined,
  saved: ProviderBinding[],
  io: CommandIo,
  scope?: Scope,
): ProviderBinding[] {
  const list = names ?? [];
  if (list.length === 0) {
    if (saved.length === 0) {
      throw new ConfigError(`name the providers to connect: ${PROVIDER_IDS.join(", ")} or all`);
    }
    return saved;
  }
  let ids: ProviderId[];
  if (list.includes("all")) {
    ids = PROVIDER_IDS.filter((id) => {
      if (scope !== "project" || hasProjectScope(id)) return true;
      loggerFor(io).warn(`${PROVIDERS[id].label} has no project-level MCP file; skipped`);
      return false;
    });
  } else {
    for (const n of list) {
      if (!isProviderId(n)) {
        throw new ConfigError(
          `unknown provider "${n}"; expected ${PROVIDER_IDS.join(", ")} or all`,
        );
      }
    }
    ids = [...new Set(list)] as ProviderId[];
  }
  return ids.map((id) => saved.find((b) => b.name === id) ?? { name: id });
}

/** Refuses a binding naming a KB the server does not mount (before anything is fetched). */
export function checkKnownKbs(bindings: readonly ProviderBinding[], health: ServerHealth): void {
  for (const b of bindings) {
    const unknown = (b.kbs ?? []).filter((kb) => !health.kbs.includes(kb));
    if (unknown.length > 0) {
      throw new ConfigError(
        `${b.name}: unknown KB ${unknown.map((k) => `"${k}"`).join(", ")}; the server mounts: ${health.kbs.join(", ") || "(none)"}`,
      );
    }
  }
}
