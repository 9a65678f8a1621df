import type { ProviderId } from "../config.js";
import { antigravity } from "./antigravity.js";
import { claude } from "./claude.js";
import { codex } from "./codex.js";
import { kiro } from "./kiro.js";
import { opencode } from "./opencode.js";
import type { ProviderAdapter } from "./types.js";

export const PROVIDERS: Record<ProviderId, ProviderAdapter> = {
  claude,
  codex,
  opencode,
  kiro,
  antigravity,
};

/** Providers whose tool namespace is flat: N per-KB entries collide (D102). */
export const FLAT_NAMESPACE: ReadonlySet<ProviderId> = new Set<ProviderId>(["kiro", "antigravity"]);

export type { AuthRef, ProviderAdapter, ProviderFiles } from "./types.js";
