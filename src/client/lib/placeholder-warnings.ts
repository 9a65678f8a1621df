/**
 * Placeholders left unresolved in the instructions blocks on disk (offline): what `status` and
 * `doctor` warn about after connect/sync wrote a `{{repo:…}}` / `{{path:…}}` it could not
 * resolve (docs/client.md "Local paths: `resolve` and placeholders"). The "Local paths" table
 * at the block's end lists resolved ones by their placeholder text and is not looked at.
 */
import { readTextOrNull } from "../atomic-file.js";
import type { ClientConfig } from "../config.js";
import { currentBlock } from "../instructions.js";
import { providerFiles } from "../provision/provider-plan.js";
import { placeholdersIn } from "../repos/placeholders.js";
import { type CommandIo, tilde } from "./io.js";

const TABLE_HEADING = "\n### Local paths\n";

/** One line per placeholder left in a provider's block; [] when there is none (or no file). */
export async function unresolvedPlaceholderWarnings(
  io: CommandIo,
  config: Pick<ClientConfig, "providers" | "server_name">,
): Promise<string[]> {
  const out: string[] = [];
  for (const binding of config.providers) {
    const { files } = providerFiles(binding, io);
    const text = await readTextOrNull(files.instructions).catch(() => null);
    const block = currentBlock(text, config.server_name, binding.name);
    if (block === undefined) continue;
    const table = block.lastIndexOf(TABLE_HEADING);
    const body = table < 0 ? block : block.slice(0, table);
    for (const p of placeholdersIn(body)) {
      out.push(
        `${binding.name}: ${p.text} in ${tilde(io, files.instructions)} is not resolved on this machine; cartographer resolve ${p.kind}:${p.ref} says why (add paths: or search_roots: to the client yaml, then cartographer sync)`,
      );
    }
  }
  return out;
}
