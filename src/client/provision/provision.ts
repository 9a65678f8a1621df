/**
 * Step two of a provisioning run, per provider binding: accepted artifacts of its KBs → merged
 * (merge.ts) → rendered by the provider's target → compared with the lockfile and the disk
 * (plan.ts) → written (apply.ts) or only reported (status). The caller reads and writes the
 * lockfile once per run (run.ts).
 */

import type { ClientConfig, ProviderBinding } from "../config.js";
import { removeEmptyDirs } from "../leftovers.js";
import type { CommandIo } from "../lib/io.js";
import { boundKbs } from "../topology.js";
import { type ApplyOutcome, applyProvision, pruneDirs } from "./apply.js";
import { DirCache, readDiskFiles } from "./disk.js";
import { joinLock, splitLock } from "./lock-parts.js";
import { type BindingKey, type BindingLock, findBinding, type Lockfile } from "./lockfile.js";
import { mergeArtifacts } from "./merge.js";
import { heldPaths, nextBindingLock } from "./next-lock.js";
import { type ProvisionPlan, planProvision } from "./plan.js";
import { readSections } from "./read-sections.js";
import type {
  Artifact,
  HeldArtifact,
  KbManifest,
  ProvisionTarget,
  RenderContext,
  TrustDecision,
} from "./types.js";

export interface TrustFlags {
  /** `--auto-trust`: unsigned KB artifacts accepted for this run. */
  autoTrust?: boolean;
  /** `--pin-key` values of this run, parsed (`{kb: [public keys]}`). */
  pinKeys?: Record<string, string[]>;
}

export interface Prepared {
  /** Every KB the server mounts (an all-KB binding reaches these). */
  serverKbs: string[];
  manifests: Map<string, KbManifest>;
  decision: TrustDecision;
  /** Set when the server cannot provision (older server): why, worded for the user. */
  skipped?: string;
}

export type TargetFor = (id: ProviderBinding["name"]) => ProvisionTarget;

export interface BindingRun {
  binding: ProviderBinding;
  key: BindingKey;
  plan: ProvisionPlan;
  /** Set when the plan was applied. */
  outcome?: ApplyOutcome;
  held: HeldArtifact[];
  notes: string[];
  /** KBs whose manifest revision differs from the one last applied. */
  changedKbs: string[];
  /** The binding's next lockfile entry (null: nothing of ours left). */
  next: BindingLock | null;
  /** A disconnect: whatever is kept is no longer managed. */
  released: boolean;
}

export function renderContext(
  io: CommandIo,
  config: ClientConfig,
  binding: ProviderBinding,
): RenderContext {
  return {
    scope: binding.scope ?? "user",
    home: io.home,
    projectDir: binding.project_dir ?? io.cwd,
    env: io.env,
    serverName: config.server_name,
    bootstrapHook: binding.bootstrap_hook === true,
  };
}

export function bindingKey(ctx: RenderContext, provider: ProviderBinding["name"]): BindingKey {
  return { provider, scope: ctx.scope, dir: ctx.scope === "user" ? ctx.home : ctx.projectDir };
}

/**
 * Which held artifacts keep their installed copy (docs/decisions.md "Client"): every hold but
 * a withdrawn consent — an MCP descriptor with no approval (it could only be on disk through an
 * approval, now revoked) or changed since its approval (as Go), and an unsigned artifact of a KB that was in `trust` at the last run
 * and is not any more (`cartographer trust <kb> --revoke`). Those are pruned, with the reason.
 */
function heldConsent(
  config: ClientConfig,
  kbs: readonly string[],
  held: readonly HeldArtifact[],
  locked: BindingLock | undefined,
  empty: boolean,
): { keep: Set<string>; revoked: Map<string, string> } {
  const keep = new Set<string>();
  const revoked = new Map<string, string>();
  if (empty) return { keep, revoked };
  const trustedBefore = new Set(locked?.trusted ?? []);
  const trustedNow = new Set(config.trust ?? []);
  for (const h of held) {
    if (!kbs.includes(h.kb)) continue;
    const origin = `${h.kb}/${h.kind}/${h.name}`;
    if (h.cause === "unapproved") revoked.set(origin, "its approval was revoked");
    // The approval is bound to the content hash, as in Go: a changed descriptor is no longer
    // approved at all; the old entry goes until the new one is approved (docs/decisions.md).
    else if (h.cause === "approval-changed")
      revoked.set(origin, "it changed since its approval (needs_approval)");
    else if (h.cause === "unsigned" && trustedBefore.has(h.kb) && !trustedNow.has(h.kb))
      revoked.set(origin, `trust in KB ${h.kb} was revoked`);
    else keep.add(origin);
  }
  return { keep, revoked };
}

/** The held list with `kept` set on each artifact whose earlier copy the plan leaves on disk. */
function markKept(held: HeldArtifact[], plan: ProvisionPlan): HeldArtifact[] {
  const kept = new Set<string>();
  for (const a of plan.files)
    if (a.kind === "held") for (const o of (a.locked?.origin ?? a.origin).split(",")) kept.add(o);
  for (const a of plan.sections)
    if (a.kind === "held") for (const o of a.locked?.origins ?? []) kept.add(o);
  return held.map((h) => (kept.has(`${h.kb}/${h.kind}/${h.name}`) ? { ...h, kept: true } : h));
}

export interface RunOptions {
  /** Write (sync/connect) or only compare (status). */
  write: boolean;
  force: boolean;
  targetFor: TargetFor;
  /** Render as if the KBs offered nothing: disconnect prunes everything of ours. */
  empty?: boolean;
  /** How long a writing run waits for another one to finish (default 30 s). */
  lockWaitMs?: number;
}

/** Plans (and with `write`, applies) one binding against `lock`. */
export async function runBinding(
  io: CommandIo,
  config: ClientConfig,
  binding: ProviderBinding,
  prepared: Prepared,
  lock: Lockfile,
  opts: RunOptions,
): Promise<BindingRun> {
  const kbs = boundKbs(binding.kbs ?? [], prepared.serverKbs);
  const ctx = renderContext(io, config, binding);
  // Rendering nothing (disconnect, doctor) means no bootstrap hook either: it is ours to remove.
  if (opts.empty) ctx.bootstrapHook = false;
  const key = bindingKey(ctx, binding.name);
  // Connect's own records are its step's business (connection-run.ts): kept as they are.
  const { artifacts: locked, connection } = splitLock(findBinding(lock, key));
  let artifacts: Artifact[] = [];
  let held: HeldArtifact[] = [];
  if (!opts.empty) {
    const accepted = prepared.decision.accepted.filter((a) => kbs.includes(a.kb));
    const merged = mergeArtifacts(accepted, kbs);
    artifacts = merged.artifacts;
    held = [...prepared.decision.held.filter((h) => kbs.includes(h.kb)), ...merged.held];
  }
  const consent = heldConsent(config, kbs, held, locked, opts.empty === true);
  if (locked && locked.sections.length > 0)
    ctx.ownedSections = locked.sections.map((s) => ({ file: s.file, id: s.id }));
  const render = opts.targetFor(binding.name).render(artifacts, ctx);
  const roots = render.roots;
  const anchors = [key.dir, io.home];
  const cache = new DirCache(anchors);
  const paths = [
    ...new Set([...render.files.map((f) => f.path), ...(locked?.files ?? []).map((f) => f.path)]),
  ];
  const disk = await readDiskFiles(paths, roots, cache);
  const sections = await readSections(render.sections, roots, cache, anchors);
  const plan = planProvision({
    render,
    lock: locked,
    disk,
    sections,
    force: opts.force,
    held: consent.keep,
    revoked: consent.revoked,
  });
  held = markKept(held, plan);
  let outcome: ApplyOutcome | undefined;
  let dirs = locked?.dirs ?? [];
  if (opts.write) {
    outcome = await applyProvision(plan, roots, key.dir, anchors);
    dirs = await pruneDirs([...dirs, ...outcome.createdDirs], heldPaths(plan, outcome), roots);
    // Disconnect: a root folder left empty (`~/.agents/skills`) goes too, with empty parents.
    if (opts.empty) for (const root of roots) await removeEmptyDirs(root, [key.dir]);
  }
  const revisions: Record<string, string> = {};
  const changedKbs: string[] = [];
  for (const kb of kbs) {
    const revision = prepared.manifests.get(kb)?.revision;
    if (revision === undefined) continue;
    revisions[kb] = revision;
    if (locked && locked.revisions[kb] !== revision) changedKbs.push(kb);
  }
  const artifactsNext = opts.empty
    ? null
    : nextBindingLock({
        key,
        plan,
        ...(outcome ? { outcome } : {}),
        revisions,
        dirs,
        trusted: kbs.filter((kb) => config.trust?.includes(kb)),
      });
  const next = joinLock(key, artifactsNext, connection);
  return {
    binding,
    key,
    plan,
    ...(outcome ? { outcome } : {}),
    held,
    notes: render.notes,
    changedKbs,
    next,
    released: opts.empty === true,
  };
}
