/** Plans for KB-level files: curated indexes, maps/journals, logs, skills. */

import { KbError } from "../../common/errors.js";
import { normalizeRelPath } from "../../common/paths.js";
import type { BodyEdit, WritePlan } from "../core/api.js";
import { applyEdits } from "../core/edits.js";
import { normalizeNewlines, serializeDocument, splitDocument } from "../core/frontmatter.js";
import { contentHash } from "../core/hash.js";
import { MAX_SEGMENT_BYTES, RESERVED_BASENAMES } from "../core/ids.js";
import { EMPTY_LOG, insertLogEntry, rfc3339 } from "../core/log.js";
import { checkIfMatch, type PlanContext } from "../core/plan-context.js";
import type { Frontmatter } from "../core/types.js";
import { filesUnderDir } from "./assets.js";
import { readTextOrNull } from "./fsutil.js";

const NAME = /^[a-z0-9][a-z0-9._-]*$/;

function checkName(name: string, what: string): void {
  if (typeof name !== "string" || !NAME.test(name) || name.includes("..")) {
    throw new KbError("invalid_id", `${what} "${name}" must match [a-z0-9][a-z0-9._-]*`);
  }
  if (name.length > MAX_SEGMENT_BYTES) {
    throw new KbError(
      "invalid_id",
      `${what} "${name.slice(0, 32)}…" is longer than ${MAX_SEGMENT_BYTES} bytes`,
    );
  }
  if (
    RESERVED_BASENAMES.some((r) => r.toLowerCase() === name.toLowerCase()) ||
    name === "services"
  ) {
    throw new KbError("reserved_name", `${what} "${name}" is reserved`);
  }
}

async function scopeDir(ctx: PlanContext, scope: string | null): Promise<string> {
  if (scope === null || scope === undefined || scope === "") return "data";
  const maps = await ctx.maps();
  if (!maps.some((m) => m.name === scope)) {
    throw new KbError(
      "not_found",
      `map or journal "${scope}" does not exist; known: ${maps.map((m) => m.name).join(", ") || "none"}`,
    );
  }
  return `data/${scope}`;
}

/** index_patch: edits and/or an appended block on data/index.md or data/<scope>/index.md. */
export async function planIndexPatch(
  ctx: PlanContext,
  input: { scope: string | null; edits?: BodyEdit[]; append?: string; ifMatch?: string },
): Promise<WritePlan> {
  const path = `${await scopeDir(ctx, input.scope)}/index.md`;
  const hasEdits = Array.isArray(input.edits) && input.edits.length > 0;
  if (!hasEdits && !input.append)
    throw new KbError("invalid_argument", "index_patch needs edits and/or append");
  const current = await readTextOrNull(ctx.root, path);
  checkIfMatch(
    path,
    current === null ? null : contentHash(current),
    current === null ? undefined : input.ifMatch,
  );
  const text = normalizeNewlines(
    current ?? `---\ntype: Index\ntitle: ${input.scope ?? "Index"}\n---\n# Index\n`,
  );
  const { body } = splitDocument(text);
  const header = text.slice(0, text.length - body.length);
  let next = hasEdits ? applyEdits(body, input.edits ?? []) : body;
  if (input.append) next = `${next.replace(/\n+$/, "")}\n\n${input.append.trim()}\n`;
  const out = header + next;
  return {
    changes: [{ path, content: out }],
    target: input.scope ?? "index",
    touchedIds: [],
    result: { path, hash: contentHash(out) },
  };
}

/** map_create: `_map.md`, `index.md` and `log.md` of a new top-level folder. */
export async function planMapCreate(
  ctx: PlanContext,
  input: {
    name: string;
    kind: "map" | "journal";
    title?: string;
    conceptTypes?: string[];
    ontologyMode?: "strict" | "emergent" | "off";
    requiredFields?: string[];
  },
): Promise<WritePlan> {
  checkName(input.name, "map name");
  if (input.kind !== "map" && input.kind !== "journal") {
    throw new KbError(
      "invalid_argument",
      `kind must be map or journal, got ${JSON.stringify(input.kind)}`,
    );
  }
  const mode = input.ontologyMode ?? "emergent";
  if (!["strict", "emergent", "off"].includes(mode)) {
    throw new KbError(
      "invalid_argument",
      `ontology_mode must be strict, emergent or off, got ${JSON.stringify(mode)}`,
    );
  }
  const dir = `data/${input.name}`;
  if (
    (await filesUnderDir(ctx.root, dir)).length > 0 ||
    (await readTextOrNull(ctx.root, `${dir}.md`)) !== null
  ) {
    throw new KbError("already_exists", `${dir} already exists`);
  }
  const title = input.title?.trim() || input.name;
  const fm: Frontmatter = { type: "Map", title, kind: input.kind, ontology_mode: mode };
  if (input.conceptTypes?.length) fm.concept_types = input.conceptTypes.map(String);
  if (input.requiredFields?.length) fm.required_fields = input.requiredFields.map(String);
  return {
    changes: [
      { path: `${dir}/_map.md`, content: serializeDocument(fm, `# ${title}\n`) },
      {
        path: `${dir}/index.md`,
        content: serializeDocument({ type: "Index", title }, `# ${title}\n`),
      },
      { path: `${dir}/log.md`, content: EMPTY_LOG },
    ],
    target: input.name,
    touchedIds: [],
    result: { name: input.name, kind: input.kind, path: `${dir}/_map.md` },
  };
}

const MAP_OWN_FILES = ["_map.md", "_archive.md", "index.md", "log.md"];

/** map_delete: only an empty map (nothing but its own descriptor, index and log). */
export async function planMapDelete(ctx: PlanContext, input: { name: string }): Promise<WritePlan> {
  checkName(input.name, "map name");
  const maps = await ctx.maps();
  if (!maps.some((m) => m.name === input.name))
    throw new KbError("not_found", `map "${input.name}" does not exist`);
  const dir = `data/${input.name}`;
  const files = await filesUnderDir(ctx.root, dir);
  const own = files.filter((f) => MAP_OWN_FILES.includes(f.slice(dir.length + 1)));
  const rest = files.filter((f) => !own.includes(f));
  if (rest.length > 0) {
    const shown = rest.slice(0, 20).join(", ");
    throw new KbError(
      "not_empty",
      `map "${input.name}" still holds ${rest.length} file(s): ${shown}${rest.length > 20 ? ", …" : ""}; move or delete them first`,
      { remaining: rest },
    );
  }
  return {
    changes: own.map((path) => ({ path, content: null })),
    target: input.name,
    touchedIds: [],
    result: { name: input.name, deleted: true },
  };
}

/** log_append: newest-first entry in data/log.md or data/<scope>/log.md. */
export async function planLogAppend(
  ctx: PlanContext,
  input: { scope: string | null; entry: string; at: Date },
): Promise<WritePlan> {
  if (typeof input.entry !== "string" || input.entry.trim() === "") {
    throw new KbError("invalid_argument", "entry must be non-empty text");
  }
  const path = `${await scopeDir(ctx, input.scope)}/log.md`;
  const text = insertLogEntry(await readTextOrNull(ctx.root, path), input.entry, input.at);
  return {
    changes: [{ path, content: text }],
    target: input.scope ?? "log",
    touchedIds: [],
    result: { path, at: rfc3339(input.at) }, // the entry's own heading
  };
}

/** skill_install: `skills/<name>/…` files; SKILL.md is required. */
export async function planSkillInstall(
  _ctx: PlanContext,
  input: { name: string; files: Record<string, string> },
): Promise<WritePlan> {
  checkName(input.name, "skill name");
  const entries = Object.entries(input.files ?? {});
  if (!entries.some(([p]) => p === "SKILL.md")) {
    throw new KbError(
      "invalid_argument",
      "files must include SKILL.md (with name and description frontmatter)",
    );
  }
  const changes = entries.map(([rel, content]) => {
    if (typeof content !== "string")
      throw new KbError("invalid_argument", `files["${rel}"] must be text`);
    return {
      path: normalizeRelPath(`skills/${input.name}/${normalizeRelPath(rel, "skill file")}`),
      content,
    };
  });
  return {
    changes,
    target: input.name,
    touchedIds: [],
    result: { name: input.name, files: changes.map((c) => c.path) },
  };
}
