/**
 * How a provisioning run is told to the user: one summary line per provider, one line per path
 * that needs attention (tilde-shortened), and a JSON form for `status --json`. The exit-code
 * rule lives here too (docs/decisions.md "Client"): 2 when something failed, 1 when something
 * on disk still differs from the KB (status: any drift; sync: files kept because they are the
 * user's), else 0.
 */
import { type CommandIo, tilde } from "../lib/io.js";
import { describeOrphan, type OrphanJson } from "./orphans.js";
import { type FileAction, KEPT, QUIET, type SectionAction, WRITES } from "./plan.js";
import type { BindingRun } from "./provision.js";
import type { ProvisionResult } from "./run.js";

/** What a drifted path means, as `status` says it (before a sync). */
const STATUS_WORDS: Record<string, string> = {
  create: "not installed yet",
  restore: "deleted by hand",
  update: "changed in the KB",
  edited: "edited by hand (kept; sync --force overwrites it)",
  foreign: "not written by cartographer (kept; sync --force overwrites it)",
  blocked: "refused",
  prune: "removed from the KB",
  orphan: "removed from the KB but edited by hand (kept; sync --force removes it)",
  remove: "removed from the KB",
  error: "cannot be read",
};

/** A held artifact's reason, and what became of the copy installed earlier, if any. */
function heldLine(h: { reason: string; kept?: boolean }): string {
  return h.kept ? `${h.reason}; the copy installed earlier stays as it is` : h.reason;
}

export interface PathReport {
  path: string;
  /** Section id when the path is a shared file. */
  section?: string;
  action: string;
  reason: string;
}

/** Every file or section of a run that is not as the KB says (status) or was kept/failed (sync). */
export function pathReports(io: CommandIo, run: BindingRun): PathReport[] {
  const out: PathReport[] = [];
  const failed = run.outcome?.failed;
  const add = (a: FileAction | SectionAction, path: string, section?: string) => {
    const why = failed?.get(a) ?? ("why" in a && a.why ? a.why : undefined);
    const revoked = (a.kind === "prune" || a.kind === "remove") && why;
    const base =
      run.released && (a.kind === "orphan" || a.kind === "edited")
        ? "edited by hand; kept, no longer managed by cartographer"
        : revoked
          ? "to be removed"
          : (STATUS_WORDS[a.kind] ?? a.kind);
    const reason = failed?.has(a) ? `failed: ${failed.get(a)}` : why ? `${base}: ${why}` : base;
    out.push({ path: tilde(io, path), ...(section ? { section } : {}), action: a.kind, reason });
  };
  for (const a of run.plan.files) {
    if (QUIET.has(a.kind)) continue;
    if (run.outcome && !KEPT.has(a.kind) && !failed?.has(a)) continue;
    add(a, a.path);
  }
  for (const a of run.plan.sections) {
    if (QUIET.has(a.kind)) continue;
    if (run.outcome && !KEPT.has(a.kind) && a.kind !== "error" && !failed?.has(a)) continue;
    add(a, a.section.file, a.section.id);
  }
  return out;
}

function count(run: BindingRun, pred: (kind: string) => boolean, failed = false): number {
  const f = run.outcome?.failed;
  return [...run.plan.files, ...run.plan.sections].filter(
    (a) => pred(a.kind) && (f?.has(a) ?? false) === failed,
  ).length;
}

/** `claude (user): 12 written, 3 unchanged, 1 removed, 1 kept` — after a sync. */
export function syncLine(run: BindingRun): string {
  const parts = [
    `${count(run, (k) => WRITES.has(k))} written`,
    `${count(run, (k) => k === "unchanged")} unchanged`,
    `${count(run, (k) => k === "prune" || k === "remove")} removed`,
  ];
  const kept = count(run, (k) => KEPT.has(k));
  if (kept > 0) parts.push(`${kept} kept`);
  const held = count(run, (k) => k === "held");
  if (held > 0) parts.push(`${held} held as installed`);
  const failed = run.outcome?.failed.size ?? 0;
  if (failed > 0) parts.push(`${failed} failed`);
  return `${run.binding.name} (${run.key.scope}) artifacts: ${parts.join(", ")}`;
}

/** Prints a sync's result; returns its exit contribution (0, 1 kept, 2 failed). */
export function printSync(io: CommandIo, result: ProvisionResult, quietUnchanged = false): number {
  let exit = 0;
  if (result.skipped) io.stderr.write(`cartographer note: ${result.skipped}\n`);
  // A held instructions.md is left out of the instructions block too (acceptedInstructions).
  for (const h of result.held)
    io.stderr.write(
      `cartographer warn: held ${h.kind} "${h.name}" of KB ${h.kb}: ${heldLine(h)}\n`,
    );
  // Go's sync reports descriptors awaiting approval as `needs_approval` on stdout; scripts grep it.
  for (const h of result.held)
    if (h.cause === "unapproved" || h.cause === "approval-changed")
      io.stdout.write(
        `needs_approval: ${h.kind} "${h.name}" of KB ${h.kb}: cartographer approve ${h.kb} ${h.name}\n`,
      );
  for (const n of result.notes) io.stderr.write(`cartographer note: ${n}\n`);
  for (const o of result.orphaned ?? [])
    io.stderr.write(`cartographer warn: ${describeOrphan(io, o).message}\n`);
  for (const e of result.errors) {
    io.stderr.write(`cartographer error: ${e.provider}: artifacts not provisioned: ${e.message}\n`);
    exit = 2;
  }
  for (const run of result.runs) {
    const reports = pathReports(io, run);
    const busy = count(run, (k) => !QUIET.has(k)) > 0;
    if (busy || !quietUnchanged) io.stdout.write(`${syncLine(run)}\n`);
    for (const r of reports) {
      const failed = r.reason.startsWith("failed:");
      const what = r.section ? `${r.path} (${r.section})` : r.path;
      io.stderr.write(
        `cartographer ${failed ? "error" : "warn"}: ${run.binding.name}: ${what}: ${r.reason}\n`,
      );
      exit = Math.max(exit, failed || r.action === "error" ? 2 : 1);
    }
  }
  return exit;
}

export interface ProvisioningJson {
  state: "in-sync" | "drift" | "skipped" | "error";
  providers: {
    provider: string;
    scope: string;
    state: "in-sync" | "drift";
    changed_kbs: string[];
    paths: PathReport[];
  }[];
  held: {
    kb: string;
    kind: string;
    name: string;
    reason: string;
    cause?: string;
    kept?: boolean;
  }[];
  notes: string[];
  errors: { provider: string; message: string }[];
  /** Lock entries of providers no longer in the yaml (orphans.ts); drift until disconnected. */
  orphaned?: OrphanJson[];
  message?: string;
}

/** The `provisioning` object of `status --json`, from a report-only run. */
export function statusJson(io: CommandIo, result: ProvisionResult): ProvisioningJson {
  const providers = result.runs.map((run) => {
    const paths = pathReports(io, run);
    const drift = paths.length > 0 || run.changedKbs.length > 0;
    return {
      provider: run.binding.name,
      scope: run.key.scope,
      state: drift ? ("drift" as const) : ("in-sync" as const),
      changed_kbs: run.changedKbs,
      paths,
    };
  });
  const orphaned = (result.orphaned ?? []).map((o) => describeOrphan(io, o));
  const state = result.skipped
    ? "skipped"
    : result.errors.length > 0
      ? "error"
      : providers.some((p) => p.state === "drift") || orphaned.length > 0
        ? "drift"
        : "in-sync";
  return {
    state,
    providers,
    held: result.held.map((h) => ({ ...h, kind: String(h.kind) })),
    notes: result.notes,
    errors: result.errors,
    ...(orphaned.length > 0 ? { orphaned } : {}),
    ...(result.skipped ? { message: result.skipped } : {}),
  };
}

/** Prints status lines from the JSON form (one source of truth for both outputs). */
export function printStatus(io: CommandIo, json: ProvisioningJson): void {
  if (json.message) io.stdout.write(`artifacts: not provisioned: ${json.message}\n`);
  for (const p of json.providers) {
    const changed = p.changed_kbs.length > 0 ? ` (KB changed: ${p.changed_kbs.join(", ")})` : "";
    io.stdout.write(`${p.provider} (${p.scope}) artifacts: ${p.state}${changed}\n`);
    for (const r of p.paths)
      io.stdout.write(`  ${r.section ? `${r.path} (${r.section})` : r.path}: ${r.reason}\n`);
  }
  for (const e of json.errors) io.stdout.write(`${e.provider} artifacts: error: ${e.message}\n`);
  for (const o of json.orphaned ?? []) io.stdout.write(`artifacts: drift: ${o.message}\n`);
  for (const h of json.held)
    io.stdout.write(`note: held ${h.kind} "${h.name}" of KB ${h.kb}: ${heldLine(h)}\n`);
  for (const n of json.notes) io.stdout.write(`note: ${n}\n`);
}
