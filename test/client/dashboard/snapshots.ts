/** Status snapshots for the dashboard's component tests: values, as statusSnapshot returns them. */
import type { ProviderCheck } from "../../../src/client/lib/check.js";
import type { ProviderFacts, StatusSnapshot } from "../../../src/client/lib/status-snapshot.js";

export const HOME = "/home/ada";

function check(provider: string, over: Partial<ProviderCheck> = {}): ProviderCheck {
  return {
    provider,
    scope: "user",
    file: `${HOME}/.claude.json`,
    state: "in-sync",
    missing: [],
    stale: [],
    orphans: [],
    instructions: true,
    ...over,
  };
}

const disconnected = (id: ProviderFacts["id"], detected = false): ProviderFacts => ({
  id,
  label: id,
  detected,
  connected: false,
  drift: [],
  held: [],
});

/** claude connected (drift: one skill, held: one unsigned), codex detected, the rest absent. */
export function snapshot(over: Partial<StatusSnapshot> = {}): StatusSnapshot {
  return {
    configFile: `${HOME}/.cartographer.yaml`,
    configExists: true,
    serverName: "cartographer",
    tokenEnv: "CARTO_TOKEN",
    trusted: ["notes"],
    server: {
      url: "http://127.0.0.1:39273",
      reachable: true,
      health: {
        status: "ok",
        version: "9.9.9",
        ready: true,
        kbs: ["notes", "wiki"],
        mountMode: "routed",
        routedPath: "/mcp/routed",
        kbStates: [
          {
            name: "notes",
            status: "ok",
            index: { state: "ready", done: 3, total: 3 },
            conflicts: 0,
          },
          {
            name: "wiki",
            status: "degraded",
            index: { state: "building", done: 1, total: 9 },
            sync: "diverged",
            conflicts: 2,
          },
        ],
      },
    },
    providers: [
      {
        id: "claude",
        label: "Claude Code",
        detected: true,
        connected: true,
        scope: "user",
        badge: "partial",
        check: check("claude", { state: "partial", missing: ["cartographer-wiki"] }),
        drift: [{ kind: "skill", count: 1 }],
        held: [{ kind: "unsigned", count: 1 }],
      },
      disconnected("codex", true),
      disconnected("opencode"),
      disconnected("kiro"),
      disconnected("antigravity"),
    ],
    ...over,
  };
}

/** Nobody connected: the yaml does not exist yet. */
export function freshSnapshot(): StatusSnapshot {
  const base = snapshot();
  return {
    ...base,
    configExists: false,
    trusted: [],
    providers: base.providers.map((p) => ({ ...disconnected(p.id, p.detected) })),
  };
}
