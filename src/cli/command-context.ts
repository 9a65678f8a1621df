/**
 * What a command module is registered with. Its own module so that the program (program.ts),
 * which loads the command modules, and the modules themselves both depend on it, not on each
 * other.
 */
import type { Command } from "commander";
import type { CliIo } from "./io.js";

export interface CommandContext {
  io: CliIo;
  setExit: (code: number) => void;
}

/** A command module's entry: declares its commands on `program`. */
export type RegisterCommands = (program: Command, ctx: CommandContext) => void;
