/**
 * `cartographer search|read|list|log`: a KB's read tools for a person at the terminal, through
 * the running server when it holds the KB, else on the KB folder here (read-target.ts). Output is
 * aligned and cut to the terminal (read-render.ts); `--json` prints the tool's answer as is.
 */
import type { Command } from "commander";
import { lineWidth } from "../columns.js";
import type { CommandContext } from "../command-context.js";
import { CliExit, type CliIo, EXIT_USAGE } from "../io.js";
import { CONFIG_HELP } from "./client.js";
import { renderConcept, renderList, renderLog, renderSearch } from "./read-render.js";
import { openReadTarget, type TargetFlags } from "./read-target.js";

interface OutputFlags extends TargetFlags {
  json?: boolean;
}

const EXIT_CODES_HELP = `
Exit codes: 0 done; 1 the KB could not be reached or the tool answered an error (not_found,
forbidden, …); 2 bad usage (an option's value, an unknown or ambiguous --kb, arguments the tool
refused as invalid).`;

const positiveInt = (flag: string) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new CliExit(EXIT_USAGE, `${flag} must be a whole number of 1 or more, got '${value}'`);
  return Number(value);
};

/** The options every read command takes, and the exit codes in its help. */
function readCommand(program: Command, usage: string, description: string): Command {
  return program
    .command(usage)
    .description(description)
    .option(
      "--kb <name|path>",
      "a KB name (on the running server, else under --data) or a KB folder; default: the only KB",
    )
    .option("--config <file>", CONFIG_HELP)
    .option(
      "--data <dir>",
      "data directory used when no server runs (default: $CARTOGRAPHER_DATA or ./cartographer-data)",
    )
    .option("--json", "print the tool's JSON answer as is (for scripts)")
    .addHelpText("after", EXIT_CODES_HELP);
}

/** Calls `tool` on the chosen KB and prints its answer: JSON as is, or rendered for a person. */
async function runRead(
  io: CliIo,
  flags: OutputFlags,
  tool: string,
  args: Record<string, unknown>,
  render: (answer: Record<string, unknown>, width: number | null) => string,
): Promise<number> {
  const target = await openReadTarget(io, flags);
  let text: string;
  try {
    text = await target.call(tool, args);
  } finally {
    await target.close();
  }
  if (flags.json) {
    io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    return 0;
  }
  let answer: Record<string, unknown>;
  try {
    answer = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new CliExit(1, `${tool} on ${target.where} did not answer JSON: ${text.slice(0, 200)}`);
  }
  io.stdout.write(render(answer, lineWidth(io.stdout)));
  return 0;
}

/** Options commander leaves undefined are not sent: the tool's own defaults apply. */
function defined(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
}

export function registerReadCommands(program: Command, { io, setExit }: CommandContext): void {
  readCommand(program, "search <query...>", "search a KB's concepts (keyword by default)")
    .option("--limit <n>", "at most this many results (default 10)", positiveInt("--limit"))
    .option("--scope <prefix>", "only ids under this prefix, e.g. a map name")
    .option("--mode <mode>", "keyword (default), semantic or hybrid")
    .action(
      async (
        words: string[],
        opts: OutputFlags & { limit?: number; scope?: string; mode?: string },
      ) => {
        const query = words.join(" ");
        const args = defined({ query, limit: opts.limit, scope: opts.scope, mode: opts.mode });
        setExit(await runRead(io, opts, "search", args, (a, w) => renderSearch(a, query, w)));
      },
    );
  readCommand(program, "read <id>", "print one concept: its header and body")
    .option("--section <heading>", "only this heading's text")
    .option("--outline", "only the headings")
    .option("--full", "the whole body even over 60 KB (otherwise its outline)")
    .action(
      async (
        id: string,
        opts: OutputFlags & { section?: string; outline?: boolean; full?: boolean },
      ) => {
        const args = defined({ id, section: opts.section, outline: opts.outline, full: opts.full });
        setExit(await runRead(io, opts, "concept_read", args, renderConcept));
      },
    );
  readCommand(program, "list", "list a KB's concepts: id, type, title")
    .option("--map <map>", "only this map's concepts")
    .option("--prefix <prefix>", "only ids under this prefix")
    .option("--type <type>", "only concepts of this type")
    .option("--limit <n>", "at most this many (default 500)", positiveInt("--limit"))
    .action(
      async (
        opts: OutputFlags & { map?: string; prefix?: string; type?: string; limit?: number },
      ) => {
        const args = defined({
          map: opts.map,
          prefix: opts.prefix,
          type: opts.type,
          limit: opts.limit,
        });
        setExit(await runRead(io, opts, "concept_list", args, renderList));
      },
    );
  readCommand(program, "log", "recent changes to a KB's concepts, newest first (from git)")
    .option("--since <when>", "ISO time, or <N>d / <N>h back from now", "7d")
    .option("--limit <n>", "at most this many (default 100)", positiveInt("--limit"))
    .action(async (opts: OutputFlags & { since: string; limit?: number }) => {
      const args = defined({ since: opts.since, limit: opts.limit });
      setExit(await runRead(io, opts, "changes_since", args, renderLog));
    });
}
