/** `cartographer token new`: a fresh random token and its principal id. */
import type { Command } from "commander";
import { generateToken } from "../../auth/tokens.js";
import type { CommandContext } from "../command-context.js";

export function registerTokenCommands(program: Command, { io }: CommandContext): void {
  const token = program.command("token").description("bearer tokens");
  token
    .command("new")
    .description(
      "print a fresh random token and its principal id (store it in a secret manager; the server keeps only its sha256)",
    )
    .option("--json", "print JSON")
    .action((opts: { json?: boolean }) => {
      const { token: value, principalId } = generateToken();
      // The one place a token value is printed: the user asked for a new one, on stdout only.
      if (opts.json)
        io.stdout.write(`${JSON.stringify({ token: value, principal_id: principalId })}\n`);
      else io.stdout.write(`token: ${value}\nprincipal_id: ${principalId}\n`);
    });
}
