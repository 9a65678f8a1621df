/**
 * The per-provider table: one record per agent tool with everything provider-specific — its
 * connect adapter, its provisioning layout, its tool naming, how it is detected
 * (targets/<provider>.ts; docs/client.md "Provisioning destinations").
 */
import type { ProviderId } from "../../config.js";
import type { ProvisionTarget } from "../types.js";
import { antigravity } from "./antigravity.js";
import { claude } from "./claude.js";
import { codex } from "./codex.js";
import { kiro } from "./kiro.js";
import { opencode } from "./opencode.js";
import type { Provider } from "./provider.js";

export const PROVIDERS: Readonly<Record<ProviderId, Provider>> = {
  claude,
  codex,
  opencode,
  kiro,
  antigravity,
};

export function provisionTargetFor(id: ProviderId): ProvisionTarget {
  return PROVIDERS[id];
}

export type { AuthRef, Provider, ProviderAdapter, ProviderFiles } from "./provider.js";
