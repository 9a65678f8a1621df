/** The result of an import, as `--json` prints it and the summary counts it. Pure. */
import type { Collision, ImportPlan } from "./types.js";

export interface ImportReport {
  via: "local" | "server";
  dry_run: boolean;
  imported: Array<{ source: string; id: string; path: string }>;
  skipped: Array<{ source: string; id: string; reason: string }>;
  errors: Array<{ source: string; message: string }>;
  assets: Array<{ source: string; path: string; owner: string }>;
  collisions: Collision[];
  unresolved_links: Array<{ source: string; link: string }>;
  /** Attachments no note references: not copied. */
  ignored: string[];
  symlinks_skipped: string[];
  maps_created: string[];
  commits: number;
}

export function emptyReport(
  plan: ImportPlan,
  via: ImportReport["via"],
  dryRun: boolean,
  symlinks: string[],
): ImportReport {
  return {
    via,
    dry_run: dryRun,
    imported: [],
    skipped: [],
    errors: [...plan.errors],
    assets: [],
    collisions: plan.collisions,
    unresolved_links: plan.unresolved,
    ignored: plan.ignored,
    symlinks_skipped: symlinks,
    maps_created: [],
    commits: 0,
  };
}

/** Go's summary line, with the rest counted after it. */
export function summaryLine(r: ImportReport): string {
  const verb = r.dry_run ? "would import" : "imported";
  const extra = [
    r.assets.length ? `assets: ${r.assets.length}` : "",
    renamedCount(r) ? `renamed: ${renamedCount(r)}` : "",
    r.unresolved_links.length ? `unresolved links: ${r.unresolved_links.length}` : "",
    r.symlinks_skipped.length ? `symlinks skipped: ${r.symlinks_skipped.length}` : "",
    r.dry_run ? "" : `commits: ${r.commits}`,
  ].filter((s) => s !== "");
  return `${verb}: ${r.imported.length}, skipped: ${r.skipped.length}, errors: ${r.errors.length}${extra.length ? ` (${extra.join(", ")})` : ""}`;
}

/** Notes whose id is not their plain name (a duplicate's first holder keeps it). */
export function renamedCount(r: ImportReport): number {
  return r.collisions.reduce(
    (n, c) => n + c.assigned.filter((a) => c.reason !== "duplicate" || a.id !== c.name).length,
    0,
  );
}
