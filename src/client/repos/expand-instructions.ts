/**
 * The placeholders of every KB's accepted instructions.md, resolved once per command run and
 * expanded into the text the instructions block carries (connect, sync, reconnect). Only the
 * client expands: the server serves and hashes the text as written (docs/decisions.md
 * "Resolve: placeholders in the instructions block"). A placeholder that does not resolve is
 * left as written and reported; it never stops the run.
 */
import {
  expandPlaceholders,
  placeholderId,
  placeholdersIn,
  unwritablePath,
} from "./placeholders.js";
import { ResolveError } from "./resolve-error.js";
import type { PathResolver } from "./resolver.js";

/** One KB's instructions as the block carries them. */
export interface KbInstructions {
  text: string;
  /** Placeholder id (`repo:x`) → the path it was replaced by; the block's "Local paths". */
  localPaths: ReadonlyMap<string, string>;
}

export interface InstructionsExpansion {
  byKb: Map<string, KbInstructions>;
  /** One line per placeholder left as written, naming the KB and why. */
  warnings: string[];
}

/**
 * Expands `texts` (kb → instructions.md). `resolver` is called only when some text has a
 * placeholder, so a run without any reads no cache and scans nothing.
 */
export async function expandInstructions(
  texts: ReadonlyMap<string, string>,
  resolver: () => PathResolver,
): Promise<InstructionsExpansion> {
  const byKb = new Map<string, KbInstructions>();
  const warnings: string[] = [];
  let shared: PathResolver | undefined;
  for (const [kb, text] of texts) {
    const found = placeholdersIn(text);
    const localPaths = new Map<string, string>();
    for (const p of found) {
      shared ??= resolver();
      try {
        const hit = await shared.resolve(p.kind, p.ref);
        const bad = unwritablePath(hit.path);
        if (bad) throw new ResolveError("not_found", `${hit.path} cannot be written: ${bad}`);
        localPaths.set(placeholderId(p), hit.path);
        for (const w of hit.warnings) warnings.push(`instructions of KB ${kb}: ${p.text}: ${w}`);
      } catch (err) {
        if (!(err instanceof ResolveError)) throw err;
        warnings.push(`instructions of KB ${kb}: ${p.text} left as written: ${err.message}`);
      }
    }
    byKb.set(kb, { text: expandPlaceholders(text, localPaths), localPaths });
  }
  return { byKb, warnings };
}
