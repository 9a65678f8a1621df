/**
 * "Did you mean …?" for an unknown top-level command, as Go's CLI answers it (docs/decisions.md
 * "Unknown commands"): the nearest command name within two edits. Subcommands (`kb clnoe`) keep
 * commander's own suggestion.
 */
import type { Command } from "commander";
import { editDistance } from "./config/suggest.js";

const MAX_EDITS = 2;

/** The one nearest name within MAX_EDITS (a tie suggests nothing, as in Go). */
export function nearestCommand(word: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = MAX_EDITS + 1;
  let tie = false;
  for (const name of names) {
    const d = editDistance(word.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) [best, bestDistance, tie] = [name, d, false];
    else if (d === bestDistance && name !== best) tie = true;
  }
  return best !== undefined && !tie ? best : undefined;
}

/** The suggestion line when `argv` starts with an unknown command, or "" when there is none. */
export function unknownCommandHint(program: Command, argv: readonly string[]): string {
  const word = argv[0];
  if (word === undefined || word.startsWith("-")) return "";
  const names = program.commands.flatMap((c) => [c.name(), ...c.aliases()]);
  if (names.includes(word)) return "";
  const near = nearestCommand(word, names);
  return near ? `(did you mean '${near}'?)\n` : "";
}
