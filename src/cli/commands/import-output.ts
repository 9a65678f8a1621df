/** What `cartographer import` prints: the plan of a dry run, the problems, Go's summary line. */
import { type ImportReport, summaryLine } from "../../kb/import/report.js";

/** Lines of one kind shown before "… and N more". */
const SHOWN = 10;

function capped(lines: string[]): string[] {
  if (lines.length <= SHOWN) return lines;
  return [...lines.slice(0, SHOWN), `  … and ${lines.length - SHOWN} more (--json lists them all)`];
}

export function reportText(r: ImportReport): string {
  const out: string[] = [];
  if (r.dry_run) {
    for (const i of r.imported) out.push(`[dry-run] ${i.source} -> ${i.path}`);
    for (const a of r.assets) out.push(`[dry-run] ${a.source} -> ${a.path} (asset of ${a.owner})`);
    for (const m of r.maps_created) out.push(`[dry-run] create map ${m}`);
  }
  out.push(...capped(r.skipped.map((s) => `skipped ${s.source}: ${s.id} is ${s.reason}`)));
  out.push(
    ...capped(
      r.collisions.flatMap((c) =>
        c.assigned
          .filter((a) => a.id !== c.name || c.reason !== "duplicate")
          .map((a) => `renamed ${a.source} -> ${a.id} (${c.reason.replace(/_/g, " ")}: ${c.name})`),
      ),
    ),
  );
  out.push(
    ...capped(
      r.unresolved_links.map((u) => `unresolved link in ${u.source}: ${u.link} (left as written)`),
    ),
  );
  out.push(...capped(r.symlinks_skipped.map((s) => `symlink skipped: ${s}`)));
  out.push(...capped(r.errors.map((e) => `error ${e.source}: ${e.message}`)));
  out.push(summaryLine(r));
  return `${out.join("\n")}\n`;
}
