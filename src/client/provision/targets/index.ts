/**
 * The provisioning targets, one per agent tool (docs/client.md "Provisioning destinations").
 * Pure renderers: the engine (provision.ts) writes what they return.
 */
import type { ProviderId } from "../../config.js";
import type { ProvisionTarget } from "../types.js";
import { antigravityTarget } from "./antigravity.js";
import { claudeTarget } from "./claude.js";
import { codexTarget } from "./codex.js";
import { kiroTarget } from "./kiro.js";
import { opencodeTarget } from "./opencode.js";

export const PROVISION_TARGETS: Readonly<Record<ProviderId, ProvisionTarget>> = {
  claude: claudeTarget,
  codex: codexTarget,
  opencode: opencodeTarget,
  kiro: kiroTarget,
  antigravity: antigravityTarget,
};

export function provisionTargetFor(id: ProviderId): ProvisionTarget {
  return PROVISION_TARGETS[id];
}
