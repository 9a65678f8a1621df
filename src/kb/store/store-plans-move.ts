/**
 * concept_move: a batch of moves validated as a whole before any byte is planned. An expanded
 * concept moves with its folder (satellites and assets); links to every moved id are
 * rewritten in every Markdown file of the KB that mentions one.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { KbError } from "../../common/errors.js";
import type { ConceptMove, FileChange, WritePlan } from "../core/api.js";
import { parseDocument } from "../core/frontmatter.js";
import { candidatePaths, validateId } from "../core/ids.js";
import { rewriteLinks } from "../core/markdown.js";
import type { PlanContext } from "../core/plan-context.js";
import type { MapDescriptor } from "../core/types.js";
import { validateConceptWrite } from "../core/validate.js";
import { filesUnderDir } from "./assets.js";
import { readBytesOrNull, readTextOrNull, readTextsChunked, refuseWrongKinds } from "./fsutil.js";
import {
  ambiguousError,
  conceptIdOf,
  notFound,
  resolveConcept,
  walkMarkdown,
} from "./store-read.js";

interface FileMove {
  from: string;
  to: string;
}

function checkDistinct(moves: ConceptMove[]): void {
  const froms = new Set<string>();
  const tos = new Set<string>();
  moves.forEach((m, i) => {
    if (froms.has(m.from))
      throw new KbError("invalid_argument", `move ${i + 1}: "${m.from}" is moved twice`);
    if (tos.has(m.to))
      throw new KbError("invalid_argument", `move ${i + 1}: two moves target "${m.to}"`);
    if (m.from === m.to)
      throw new KbError("invalid_argument", `move ${i + 1}: from and to are both "${m.from}"`);
    froms.add(m.from);
    tos.add(m.to);
  });
  for (const to of tos) {
    if (froms.has(to))
      throw new KbError(
        "invalid_argument",
        `"${to}" is both moved and a move target: split the batch`,
      );
  }
}

/** Plans the file moves of one concept move, and the id moves they imply (satellites too). */
async function planOne(
  ctx: PlanContext,
  move: ConceptMove,
  index: number,
  maps: MapDescriptor[],
  idMoves: Map<string, string>,
): Promise<FileMove[]> {
  const label = `move ${index + 1}`;
  validateId(move.from);
  validateId(move.to, { forWrite: true });
  const src = await resolveConcept(ctx.root, move.from, maps);
  if (!src) throw notFound(move.from);
  if (src.ambiguous) throw ambiguousError(move.from, `${label}: "${move.from}"`);
  if (await resolveConcept(ctx.root, move.to, maps)) {
    throw new KbError("already_exists", `${label}: target "${move.to}" already exists`);
  }
  const [flatFrom, expandedFrom] = candidatePaths(move.from);
  const [flatTo, expandedTo] = candidatePaths(move.to);
  validateConceptWrite(move.to, parseDocument(src.text).frontmatter, maps);
  idMoves.set(move.from, move.to);
  await refuseWrongKinds(ctx.root, src.path === flatFrom ? flatTo : expandedTo);
  if (src.path === flatFrom) return [{ from: flatFrom, to: flatTo }];
  // Expanded: the whole folder moves; satellites keep their relative place.
  const fromDir = expandedFrom.slice(0, -"/index.md".length);
  const toDir = expandedTo.slice(0, -"/index.md".length);
  if ((await readdir(join(ctx.root, toDir)).catch(() => [])).length > 0) {
    throw new KbError("already_exists", `${label}: target folder ${toDir} is not empty`);
  }
  const files = await filesUnderDir(ctx.root, fromDir);
  const moves: FileMove[] = [];
  for (const file of files) {
    const to = toDir + file.slice(fromDir.length);
    const oldId = conceptIdOf(file, maps);
    const newId = conceptIdOf(to, maps);
    if (oldId && newId && oldId !== move.from) {
      validateId(newId, { forWrite: true });
      const text = await readTextOrNull(ctx.root, file);
      validateConceptWrite(newId, parseDocument(text ?? "").frontmatter, maps);
      idMoves.set(oldId, newId);
    }
    moves.push({ from: file, to });
  }
  return moves;
}

export async function planConceptMove(
  ctx: PlanContext,
  input: { moves: ConceptMove[]; rewriteLinks: boolean },
): Promise<WritePlan> {
  if (!Array.isArray(input.moves) || input.moves.length === 0) {
    throw new KbError("invalid_argument", "moves must list at least one {from, to}");
  }
  checkDistinct(input.moves);
  const maps = await ctx.maps();
  const idMoves = new Map<string, string>();
  const fileMoves: FileMove[] = [];
  for (const [i, m] of input.moves.entries())
    fileMoves.push(...(await planOne(ctx, m, i, maps, idMoves)));
  const moved = new Map(fileMoves.map((f) => [f.from, f.to]));
  const changes: FileChange[] = [];
  const touched = new Set<string>([...idMoves.keys(), ...idMoves.values()]);
  let rewrittenFiles = 0; // files whose links changed (the moved files themselves only if so)
  for (const f of fileMoves) {
    if (f.from.endsWith(".md")) continue; // Markdown handled below (links may change).
    changes.push(
      { path: f.from, content: null },
      { path: f.to, content: await readBytesOrNull(ctx.root, f.from) },
    );
  }
  const markdown = [
    ...(await walkMarkdown(ctx.root, "data")),
    ...(await walkMarkdown(ctx.root, "services")),
  ];
  const texts = await readTextsChunked(ctx.root, markdown);
  markdown.forEach((path, i) => {
    const text = texts[i] ?? "";
    const to = moved.get(path);
    const rewritten = input.rewriteLinks ? rewriteLinks(text, path, idMoves, to, moved) : text;
    // rewriteLinks normalizes newlines: a file whose links did not change keeps its bytes.
    const next = rewritten === text.replace(/\r\n?/g, "\n") ? text : rewritten;
    if (next !== text) rewrittenFiles++;
    if (to !== undefined) {
      changes.push({ path, content: null }, { path: to, content: next });
    } else if (next !== text) {
      changes.push({ path, content: next });
      const id = conceptIdOf(path, maps);
      if (id) touched.add(id);
    }
  });
  return {
    changes,
    target: input.moves.map((m) => m.from).join(", "),
    touchedIds: [...touched].sort(),
    result: {
      moved: [...idMoves].map(([from, to]) => ({ from, to })),
      rewritten: rewrittenFiles,
    },
  };
}
