/**
 * The cross-field argument rules a JSON schema cannot state, shared by the patch and move
 * tools: the single-edit form (`old_string`/`new_string`) versus `edits`, and `from`/`to`
 * versus `moves`. The argument shapes live here too, so each tool shows the same schema.
 */

import { KbError } from "../../common/errors.js";
import type { BodyEdit, ConceptMove } from "../../kb/core/api.js";
import { blankRequired } from "../args.js";
import { type ArgsOf, arr, bool, object, opt, str } from "../schema.js";

/** One body edit inside `edits`. */
const EDIT = object({ old_string: str(), new_string: str(), replace_all: opt(bool()) });

/** The body-edit arguments of concept_patch, index_patch and a batch patch. */
export const EDIT_ARGS = {
  old_string: opt(str()),
  new_string: opt(str()),
  replace_all: opt(bool("Replace every occurrence")),
  edits: opt(arr(EDIT, "Ordered edits, applied atomically")),
};

/**
 * The ordered edits of a patch call: either the single form (`old_string`/`new_string`) or
 * `edits`, never both. Returns undefined when neither is given.
 */
export function editsFrom(args: ArgsOf<typeof EDIT_ARGS>): BodyEdit[] | undefined {
  const { old_string, new_string, edits } = args;
  const single = old_string !== undefined || new_string !== undefined;
  if (single && edits !== undefined) {
    throw new KbError("invalid_argument", "pass either old_string/new_string or edits, not both");
  }
  if (single) {
    if (old_string === undefined || new_string === undefined) {
      throw new KbError("invalid_argument", "'old_string' and 'new_string' must be given together");
    }
    const edit: BodyEdit = { old_string, new_string };
    if (args.replace_all === true) edit.replace_all = true;
    return [edit];
  }
  if (edits !== undefined) {
    if (edits.length === 0)
      throw new KbError("invalid_argument", "'edits' is empty: pass at least one edit");
    if (args.replace_all !== undefined) {
      throw new KbError(
        "invalid_argument",
        "'replace_all' belongs inside each edit when using edits",
      );
    }
    return edits;
  }
  return undefined;
}

/** The move arguments of concept_move: one `from`/`to` pair or a `moves` list. */
export const MOVE_ARGS = {
  from: opt(str()),
  to: opt(str()),
  moves: opt(arr(object({ from: str(), to: str() }))),
};

/** The moves of a concept_move call: `from`/`to` or `moves`, never both, at least one. */
export function movesFrom(args: ArgsOf<typeof MOVE_ARGS>): ConceptMove[] {
  const { from, to, moves } = args;
  const single = from !== undefined || to !== undefined;
  if (single && moves !== undefined)
    throw new KbError("invalid_argument", "pass either from/to or moves, not both");
  if (single) {
    if (!from) throw blankRequired("from");
    if (!to) throw blankRequired("to");
    return [{ from, to }];
  }
  if (moves === undefined || moves.length === 0) {
    throw new KbError(
      "invalid_argument",
      "'moves' is required: pass from/to or a non-empty moves list",
    );
  }
  return moves;
}
