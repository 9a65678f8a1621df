/**
 * Checks inherited from Go v0.5's lint, so a KB migrated from it keeps its curation backlog:
 * imported_draft, legacy_archive_descriptor, contract_malformed. Pure.
 */
import type { LintCheck } from "./check.js";
import { contractProblems } from "./map-contract.js";

export const importedDraft: LintCheck = {
  name: "imported_draft",
  severity: "warning",
  explanation: "A concept still marked status: imported (brought in by an import) awaits curation.",
  perDoc: ({ doc: d }) =>
    d.frontmatter.status === "imported"
      ? [
          {
            id: d.id,
            message: "imported concept awaiting curation: curate it, then change its status",
          },
        ]
      : [],
};

export const legacyArchiveDescriptor: LintCheck = {
  name: "legacy_archive_descriptor",
  severity: "warning",
  explanation:
    "A map still described by a legacy _archive.md: it reads as a map; rewrite it as _map.md.",
  run: (ctx) =>
    ctx.maps
      .filter((m) => m.legacy)
      .map((m) => ({
        path: m.path,
        message:
          "legacy _archive.md descriptor: rewrite it as _map.md with a kind (map or journal)",
      })),
};

export const contractMalformed: LintCheck = {
  name: "contract_malformed",
  severity: "warning",
  explanation:
    "A map's lint contract key (required_fields…, require_index_entry, machine_path_allow_prefixes) is malformed.",
  run: (ctx) =>
    ctx.maps.flatMap((m) =>
      contractProblems(m.frontmatter).map((p) => ({
        path: m.path,
        message: `malformed lint contract key "${p.key}": ${p.why}; its malformed part is ignored`,
      })),
    ),
};
