/** Frontmatter and content checks: missing_required_field, stale_claim, machine_path. Pure. */
import { isKbError } from "../../kb/errors.js";
import { validateAgainstMap } from "../../kb/maps.js";
import type { LintCheck } from "./check.js";

/** Frontmatter dates after which a claim must be re-checked. */
export const STALE_DATE_FIELDS = ["valid_until", "review_by", "expires"] as const;

export const missingRequiredField: LintCheck = {
  name: "missing_required_field",
  severity: "error",
  explanation: "A concept lacks type, or a field its map requires (required_fields[.<Type>]).",
  run: (ctx) =>
    ctx.docs.flatMap((d) => {
      if (d.type === "") return [{ id: d.id, message: "frontmatter has no type" }];
      const name = d.map ?? d.journal;
      const map = ctx.maps.find((m) => m.name === name);
      if (!map) return [];
      try {
        // Palette breaks are validate's job: check required fields only (kb/maps.ts owns the rule).
        validateAgainstMap({ ...map, ontologyMode: "off" }, d.id, d.frontmatter);
        return [];
      } catch (err) {
        if (!isKbError(err, "validation_failed")) throw err;
        return [{ id: d.id, message: err.message }];
      }
    }),
};

export const staleClaim: LintCheck = {
  name: "stale_claim",
  severity: "warning",
  explanation:
    "A concept whose valid_until / review_by / expires date has passed, or marked status: stale.",
  run: (ctx) =>
    ctx.docs.flatMap((d) => {
      if (d.frontmatter.status === "stale") return [{ id: d.id, message: "status is stale" }];
      for (const field of STALE_DATE_FIELDS) {
        const v = d.frontmatter[field];
        if (typeof v !== "string") continue;
        const t = Date.parse(v);
        if (!Number.isNaN(t) && t < ctx.now.getTime()) {
          return [{ id: d.id, message: `${field} ${v} has passed: re-check the claim` }];
        }
      }
      return [];
    }),
};

/** Absolute paths of one person's machine: /Users/…, /home/…, C:\… . */
const MACHINE_PATH =
  /(?:^|[\s(`"'[=])(\/Users\/[^\s)`"'\]]+|\/home\/[^\s)`"'\]]+|[A-Za-z]:\\[^\s)`"'\]]+)/m;

export const machinePath: LintCheck = {
  name: "machine_path",
  severity: "warning",
  explanation: "A concept names an absolute path on one machine (/Users/…, /home/…, C:\\…).",
  run: (ctx) =>
    ctx.docs.flatMap((d) => {
      const m = MACHINE_PATH.exec(d.body);
      return m ? [{ id: d.id, message: `machine-specific path ${m[1]}` }] : [];
    }),
};
