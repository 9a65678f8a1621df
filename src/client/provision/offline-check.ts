/**
 * What `doctor` can tell about the KB artifacts without a server: the lockfile says what the
 * client wrote for each provider binding; the disk says whether it is still there as written.
 * It is the plan of a report-only run that renders nothing (the engine's own comparison, so
 * doctor and sync never disagree on what "edited" means):
 *
 *   plan action (nothing desired)   → doctor
 *   prune / remove                  → fine (on disk as written)
 *   orphan                          → edited by hand
 *   gone                            → missing (deleted by hand)
 *   blocked / error                 → cannot be checked (symlink, unreadable or unparsable file)
 */

import type { ClientConfig } from "../config.js";
import { type CommandIo, tilde } from "../lib/io.js";
import { describeOrphan, type OrphanJson, orphanedLocks } from "./orphans.js";
import type { BindingRun, Prepared, TargetFor } from "./provision.js";
import { provisionBindings, readLock } from "./run.js";

export interface ArtifactPathProblem {
  path: string;
  /** Section id when the path is a shared file. */
  section?: string;
  problem: "missing" | "edited" | "unreadable";
  reason: string;
}

export interface ProviderArtifacts {
  provider: string;
  scope: string;
  state: "in-sync" | "partial";
  /** Files and sections the lockfile records for this binding. */
  managed: number;
  paths: ArtifactPathProblem[];
}

export interface OfflineArtifacts {
  providers: ProviderArtifacts[];
  /** Lock entries of providers no longer in the yaml (orphans.ts): doctor reports them as drift. */
  orphaned: OrphanJson[];
  notes: string[];
}

const NOTHING: Prepared = {
  serverKbs: [],
  manifests: new Map(),
  decision: { accepted: [], held: [] },
};

const PROBLEMS: Record<string, Pick<ArtifactPathProblem, "problem" | "reason">> = {
  orphan: { problem: "edited", reason: "edited by hand (sync keeps it; sync --force restores it)" },
  gone: { problem: "missing", reason: "deleted by hand (sync writes it again)" },
  blocked: { problem: "unreadable", reason: "cannot be checked" },
  error: { problem: "unreadable", reason: "cannot be checked" },
};

function problemsOf(io: CommandIo, run: BindingRun): ArtifactPathProblem[] {
  const out: ArtifactPathProblem[] = [];
  const add = (kind: string, file: string, why: string | undefined, section?: string) => {
    const p = PROBLEMS[kind];
    if (!p) return;
    out.push({
      path: tilde(io, file),
      ...(section ? { section } : {}),
      problem: p.problem,
      reason: why && p.problem === "unreadable" ? `${p.reason}: ${why}` : p.reason,
    });
  };
  for (const a of run.plan.files) add(a.kind, a.path, a.why);
  for (const a of run.plan.sections) {
    // A section the provider no longer renders was not read: nothing to say about it.
    if (a.kind === "gone" && a.why) continue;
    add(a.kind, a.section.file, a.why, a.section.id);
  }
  return out;
}

/** Checks every saved binding's managed artifacts against the disk. Never writes. */
export async function checkArtifactsOffline(
  io: CommandIo,
  config: ClientConfig,
  targetFor: TargetFor,
): Promise<OfflineArtifacts> {
  const result = await provisionBindings(io, config, config.providers, NOTHING, {
    write: false,
    force: false,
    targetFor,
    empty: true,
  });
  const providers = result.runs.map((run) => {
    const paths = problemsOf(io, run);
    return {
      provider: run.binding.name,
      scope: run.key.scope,
      state: paths.length > 0 ? ("partial" as const) : ("in-sync" as const),
      managed: run.plan.files.length + run.plan.sections.filter((s) => s.locked).length,
      paths,
    };
  });
  const errors = result.errors.map((e) => `${e.provider} artifacts: not checked: ${e.message}`);
  const orphaned = orphanedLocks(io, config, await readLock(io)).map((o) => describeOrphan(io, o));
  return { providers, orphaned, notes: [...result.notes, ...errors] };
}

/** Text lines for doctor: one per provider with managed artifacts, one per problem path. */
export function describeArtifacts(report: OfflineArtifacts): string[] {
  const lines: string[] = [];
  for (const p of report.providers) {
    if (p.managed === 0) continue;
    lines.push(`${p.provider} (${p.scope}) artifacts: ${p.state} (${p.managed} managed)`);
    for (const r of p.paths)
      lines.push(`  ${r.section ? `${r.path} (${r.section})` : r.path}: ${r.reason}`);
  }
  for (const o of report.orphaned) lines.push(`artifacts: drift: ${o.message}`);
  for (const n of report.notes) lines.push(`note: ${n}`);
  return lines;
}
