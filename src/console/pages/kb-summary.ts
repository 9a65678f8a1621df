/**
 * The figures of one KB shown on the home and KB pages: concepts (atlas_overview), index state,
 * sync (sync_status), open conflicts (conflicts_list) and lint findings (lint-cache.ts). Each
 * comes from a tool called as the viewer; one the viewer may not call shows why, never a number.
 */
import { html, type Safe } from "../html.js";
import type { ConsoleKbs } from "../kbs.js";
import type { LintFigures } from "../lint-cache.js";
import { consoleUrl } from "../paths.js";
import type { Viewer } from "../types.js";

export interface SyncFigures {
  state: string;
  unpushed: number;
  last_attempt_at: string | null;
  last_pull_at: string | null;
  last_error: string | null;
}

export interface KbSummary {
  kb: string;
  concepts: number | null;
  maps: { name: string; kind: string; title: string | null; concepts: number }[];
  index: { state: string; done: number; total: number } | null;
  sync: SyncFigures | string;
  conflicts: number | string;
  lint: LintFigures;
}

export async function kbSummary(kbs: ConsoleKbs, viewer: Viewer, kb: string): Promise<KbSummary> {
  const [overview, sync, conflicts] = await Promise.all([
    kbs.call<{ concepts: number; maps: KbSummary["maps"] }>(viewer, kb, "atlas_overview"),
    kbs.call<SyncFigures>(viewer, kb, "sync_status"),
    kbs.call<{ conflicts: { resolved: boolean }[] }>(viewer, kb, "conflicts_list"),
  ]);
  const access = kbs.runtime(viewer, kb);
  const progress = access?.runtime.indexStatus.progress;
  return {
    kb,
    concepts: overview.ok ? overview.value.concepts : null,
    maps: overview.ok ? overview.value.maps : [],
    index: progress ? { state: progress.state, done: progress.done, total: progress.total } : null,
    sync: sync.ok ? sync.value : refusal(sync.code),
    conflicts: conflicts.ok ? countOf(conflicts.value) : refusal(conflicts.code),
    lint: kbs.lint(viewer, kb),
  };
}

export function kbSummaries(
  kbs: ConsoleKbs,
  viewer: Viewer,
  names: readonly string[],
): Promise<KbSummary[]> {
  return Promise.all(names.map((kb) => kbSummary(kbs, viewer, kb)));
}

function countOf(v: { conflicts: { resolved: boolean }[] }): number {
  return v.conflicts.filter((c) => !c.resolved).length;
}

function refusal(code: string): string {
  return code === "forbidden" ? "not shown (needs whole-KB read access)" : `unavailable (${code})`;
}

/** A KB's card: name (a link), then its figures as a description list. */
export function summaryCard(s: KbSummary): Safe {
  return html`<section class="card" aria-labelledby="kb-${s.kb}">
<h2 id="kb-${s.kb}"><a href="${consoleUrl.kb(s.kb)}">${s.kb}</a></h2>
<dl class="figures">
<dt>Concepts</dt><dd>${s.concepts ?? "—"}</dd>
<dt>Index</dt><dd>${indexText(s.index)}</dd>
<dt>Sync</dt><dd>${syncText(s.sync)}</dd>
<dt>Open conflicts</dt><dd>${typeof s.conflicts === "number" ? html`<a href="${consoleUrl.conflicts(s.kb)}">${s.conflicts}</a>` : s.conflicts}</dd>
<dt>Lint</dt><dd>${lintText(s.lint)}</dd>
</dl>
</section>`;
}

function indexText(i: KbSummary["index"]): string {
  if (i === null) return "—";
  return i.state === "ready" ? "ready" : `${i.state} (${i.done} of ${i.total})`;
}

function syncText(s: SyncFigures | string): Safe | string {
  if (typeof s === "string") return s;
  const parts = [s.state];
  if (s.unpushed > 0) parts.push(`${s.unpushed} unpushed`);
  if (s.last_attempt_at) parts.push(`last push attempt ${s.last_attempt_at}`);
  if (s.last_pull_at) parts.push(`last pull ${s.last_pull_at}`);
  return html`<span class="sync sync-${s.state}">${parts.join(" · ")}</span>${s.last_error ? html`<br><small>${s.last_error}</small>` : null}`;
}

function lintText(l: LintFigures): Safe | string {
  if (l.state === "computing") return "computing…";
  if (l.state === "unavailable") return `not shown (${l.reason})`;
  return html`<span class="${l.errors > 0 ? "sev-error" : "sev-none"}">${l.errors} errors</span>, <span class="${l.warnings > 0 ? "sev-warning" : "sev-none"}">${l.warnings} warnings</span>`;
}
