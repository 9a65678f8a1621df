/**
 * The import driver: the plan against a target (docs/import.md). Existing concepts are skipped,
 * never overwritten; missing maps are created; the rest goes in chunks (one commit each, or
 * one in all with --commit), each chunk's attachments with it. A dry run only reads.
 */
import { isKbError } from "../../common/errors.js";
import { chunkConcepts } from "./chunks.js";
import { emptyReport, type ImportReport } from "./report.js";
import type { ChunkWork, ImportTarget } from "./target.js";
import type { ImportPlan, PlannedAsset } from "./types.js";

export interface RunOptions {
  dryRun: boolean;
  symlinks: string[];
  /** The bytes of an attachment (scan.ts readSourceFile). */
  readAsset(asset: PlannedAsset): Promise<Uint8Array>;
  progress?(done: number, total: number): void;
}

const messageOf = (err: unknown) =>
  isKbError(err) ? `${err.code}: ${err.message}` : ((err as Error)?.message ?? String(err));

export async function runImport(
  plan: ImportPlan,
  target: ImportTarget,
  opts: RunOptions,
): Promise<ImportReport> {
  const report = emptyReport(plan, target.via, opts.dryRun, opts.symlinks);
  const existing = await target.existingConcepts(plan.concepts.map((c) => c.id));
  const todo = plan.concepts.filter((c) => {
    if (!existing.has(c.id)) return true;
    report.skipped.push({ source: c.source, id: c.id, reason: "already in the KB" });
    return false;
  });
  const maps = await target.existingMaps();
  const missing = plan.maps.filter(
    (m) => !maps.has(m) && todo.some((c) => c.id.startsWith(`${m}/`)),
  );
  if (opts.dryRun) {
    report.maps_created = missing;
    for (const c of todo) {
      report.imported.push({ source: c.source, id: c.id, path: c.path });
      for (const a of c.assets)
        report.assets.push({ source: a.source, path: a.path, owner: a.owner });
    }
    return report;
  }
  const mapFailures = await target.createMaps(missing);
  for (const f of mapFailures) report.errors.push({ source: `map ${f.what}`, message: f.message });
  report.maps_created = missing.filter((m) => !mapFailures.some((f) => f.what === m));
  const chunks = chunkConcepts(todo);
  const bySource = new Map(todo.map((c) => [c.id, c]));
  let done = 0;
  opts.progress?.(0, todo.length);
  for (const [i, concepts] of chunks.entries()) {
    const work: ChunkWork = { index: i + 1, count: chunks.length, concepts, assets: [] };
    const planned = concepts.flatMap((c) => c.assets);
    const present = await target.existingAssets(planned.map((a) => a.path));
    for (const asset of planned) {
      if (present.has(asset.path)) continue; // never overwritten: a second import keeps it
      try {
        work.assets.push({ asset, bytes: await opts.readAsset(asset) });
      } catch (err) {
        report.errors.push({ source: asset.source, message: messageOf(err) });
      }
    }
    const outcome = await target.writeChunk(work);
    for (const id of outcome.written) {
      const c = bySource.get(id);
      if (c) report.imported.push({ source: c.source, id, path: c.path });
    }
    for (const f of outcome.failed) {
      report.errors.push({ source: bySource.get(f.what)?.source ?? f.what, message: f.message });
    }
    for (const path of outcome.assetsWritten) {
      const a = work.assets.find((w) => w.asset.path === path)?.asset;
      if (a) report.assets.push({ source: a.source, path, owner: a.owner });
    }
    for (const f of outcome.assetsFailed) {
      const a = work.assets.find((w) => w.asset.path === f.what)?.asset;
      report.errors.push({ source: a?.source ?? f.what, message: f.message });
    }
    done += concepts.length;
    opts.progress?.(done, todo.length);
  }
  report.commits = await target.finish();
  return report;
}
