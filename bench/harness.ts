/**
 * Benchmark plumbing: timing, percentiles, the figure table and bench/.out/latest.json.
 * A section is a module exporting `run(ctx): Promise<Section>`; main.ts runs them in order.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export interface Target {
  /** `value` compares the figure itself; `ratio` compares figure / baseline. */
  on: "value" | "ratio";
  op: ">=" | "<=";
  value: number;
}

export interface Figure {
  name: string;
  value: number;
  unit: string;
  target?: Target;
  /** Name of another figure of the same section measured in the same run. */
  baseline?: string;
  note?: string;
}

export interface Section {
  name: string;
  figures: Figure[];
  /** Things that could not be measured, said plainly (printed, recorded). */
  pending?: string[];
}

export interface SampleStats {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  /** Operations per second over the total measured time. */
  opsPerSec: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export function summarize(samplesMs: number[]): SampleStats {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const total = samplesMs.reduce((a, b) => a + b, 0);
  return {
    n: samplesMs.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean: total / Math.max(1, samplesMs.length),
    opsPerSec: samplesMs.length / (total / 1000),
  };
}

/** Times `fn` `iterations` times after `warmup` untimed calls; durations in ms. */
export async function sample(
  fn: () => unknown | Promise<unknown>,
  opts: { iterations: number; warmup?: number },
): Promise<number[]> {
  for (let i = 0; i < (opts.warmup ?? 0); i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < opts.iterations; i++) {
    const start = performance.now();
    await fn();
    out.push(performance.now() - start);
  }
  return out;
}

/** Duration of one call in ms, with its result. */
export async function timed<T>(fn: () => Promise<T> | T): Promise<{ ms: number; result: T }> {
  const start = performance.now();
  const result = await fn();
  return { ms: performance.now() - start, result };
}

interface Row {
  section: string;
  figure: string;
  value: string;
  target: string;
  ratio: string;
  verdict: string;
  note: string;
}

function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 100) return n.toFixed(0);
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

function meets(t: Target, v: number): boolean {
  return t.op === ">=" ? v >= t.value : v <= t.value;
}

export function rows(sections: Section[]): Row[] {
  const out: Row[] = [];
  for (const s of sections) {
    const byName = new Map(s.figures.map((f) => [f.name, f]));
    for (const f of s.figures) {
      const base = f.baseline ? byName.get(f.baseline) : undefined;
      const ratio = base ? f.value / base.value : undefined;
      const checked = f.target ? (f.target.on === "ratio" ? ratio : f.value) : undefined;
      out.push({
        section: s.name,
        figure: f.name,
        value: `${fmt(f.value)} ${f.unit}`,
        target: f.target
          ? `${f.target.on === "ratio" ? "ratio " : ""}${f.target.op} ${f.target.value}`
          : "-",
        ratio: ratio !== undefined && base ? `${fmt(ratio)}× vs ${base.name}` : "-",
        verdict:
          f.target && checked !== undefined ? (meets(f.target, checked) ? "ok" : "MISSED") : "",
        note: f.note ?? "",
      });
    }
    for (const p of s.pending ?? []) {
      out.push({
        section: s.name,
        figure: p,
        value: "pending",
        target: "-",
        ratio: "-",
        verdict: "",
        note: "",
      });
    }
  }
  return out;
}

export function table(sections: Section[]): string {
  const header: Row = {
    section: "section",
    figure: "figure",
    value: "value",
    target: "target",
    ratio: "ratio",
    verdict: "",
    note: "note",
  };
  const all = [header, ...rows(sections)];
  const keys = Object.keys(header) as Array<keyof Row>;
  const widths = keys.map((k) => Math.max(...all.map((r) => r[k].length)));
  const line = (r: Row) =>
    keys
      .map((k, i) => r[k].padEnd(widths[i] as number))
      .join("  ")
      .trimEnd();
  return [
    line(header),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...all.slice(1).map(line),
  ].join("\n");
}

export async function record(outDir: string, sections: Section[]): Promise<string> {
  await fs.mkdir(outDir, { recursive: true });
  const file = path.join(outDir, "latest.json");
  const doc = {
    at: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    loadavg: os.loadavg(),
    sections,
    table: rows(sections),
  };
  await fs.writeFile(file, `${JSON.stringify(doc, null, 2)}\n`);
  return file;
}
