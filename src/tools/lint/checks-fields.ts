/** Frontmatter and content checks, per concept: missing_required_field, stale_claim, machine_path. Pure. */
import { isKbError } from "../../common/errors.js";
import { validateAgainstMap } from "../../kb/core/maps.js";
import type { LintCheck } from "./check.js";
import { allowPrefixes, pathHasPrefix } from "./map-contract.js";

/** Frontmatter dates after which a claim must be re-checked (review_after: Go v0.5's field). */
export const STALE_DATE_FIELDS = ["valid_until", "review_by", "review_after", "expires"] as const;

export const missingRequiredField: LintCheck = {
  name: "missing_required_field",
  severity: "error",
  explanation: "A concept lacks type, or a field its map requires (required_fields[.<Type>]).",
  perDoc: ({ doc: d }, env) => {
    if (d.type === "") return [{ id: d.id, message: "frontmatter has no type" }];
    const name = d.map ?? d.journal;
    const map = env.maps.find((m) => m.name === name);
    if (!map) return [];
    try {
      // Palette breaks are validate's job: check required fields only (kb/maps.ts owns the rule).
      validateAgainstMap({ ...map, ontologyMode: "off" }, d.id, d.frontmatter);
      return [];
    } catch (err) {
      if (!isKbError(err, "validation_failed")) throw err;
      return [{ id: d.id, message: err.message }];
    }
  },
};

export const staleClaim: LintCheck = {
  name: "stale_claim",
  severity: "warning",
  explanation:
    "A concept whose valid_until / review_by / review_after / expires date has passed, or status: stale.",
  perDoc: ({ doc: d }, env) => {
    if (d.frontmatter.status === "stale") return [{ id: d.id, message: "status is stale" }];
    for (const field of STALE_DATE_FIELDS) {
      const v = d.frontmatter[field];
      if (typeof v !== "string") continue;
      const t = Date.parse(v);
      if (!Number.isNaN(t) && t < env.now.getTime()) {
        return [{ id: d.id, message: `${field} ${v} has passed: re-check the claim` }];
      }
    }
    return [];
  },
};

/** Absolute paths of one person's machine: /Users/…, /home/…, ~/…, C:\… . */
const MACHINE_PATH =
  /(?:^|[\s(`"'[=])(\/Users\/[^\s)`"'\]]+|\/home\/[^\s)`"'\]]+|~\/[^\s)`"'\]]+|[A-Za-z]:\\[^\s)`"'\]]+)/gm;

export const machinePath: LintCheck = {
  name: "machine_path",
  severity: "warning",
  explanation:
    "A concept names an absolute path on one machine (/Users/…, /home/…, ~/…, C:\\…) its map does not allow.",
  perDoc: ({ doc: d }, env) => {
    const map = env.maps.find((m) => m.name === (d.map ?? d.journal));
    const allowed = map ? allowPrefixes(map.frontmatter).valid : [];
    for (const m of d.body.matchAll(MACHINE_PATH)) {
      const path = m[1] as string;
      if (!allowed.some((prefix) => pathHasPrefix(path, prefix))) {
        return [{ id: d.id, message: `machine-specific path ${path}` }];
      }
    }
    return [];
  },
};
