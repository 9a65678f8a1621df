/** Adapts the audit figures (bench/audit.ts) to the harness's Section table. */
import { run as runAudit } from "./audit.js";
import type { Section } from "./harness.js";

export async function run(): Promise<Section> {
  const f = await runAudit();
  return {
    name: "audit",
    figures: [
      { name: "naive appends/s (1 caller)", value: f.naive.c1, unit: "appends/s" },
      {
        name: "required appends/s (1 caller)",
        value: f.groupCommit.c1,
        unit: "appends/s",
        baseline: "naive appends/s (1 caller)",
      },
      { name: "naive appends/s (32 callers)", value: f.naive.c32, unit: "appends/s" },
      {
        name: "required appends/s (32 callers)",
        value: f.groupCommit.c32,
        unit: "appends/s",
        baseline: "naive appends/s (32 callers)",
        target: { on: "ratio", op: ">=", value: 5 },
      },
      {
        name: `verify unsigned (${f.verifyEntries.unsigned} entries)`,
        value: f.verifyUnsigned,
        unit: "entries/s",
        target: { on: "value", op: ">=", value: 100_000 },
      },
      {
        name: `verify signed (${f.verifyEntries.signed} entries)`,
        value: f.verifySigned,
        unit: "entries/s",
        target: { on: "value", op: ">=", value: 15_000 },
      },
    ],
  };
}
