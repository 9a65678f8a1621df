/** `cartographer audit verify|export`: offline; reads files only, never contacts a server. */
import type { Command } from "commander";
import { runAuditExport, runAuditVerify } from "../../audit/cli.js";
import type { CommandContext } from "../command-context.js";
import { settingsFrom } from "../config/pick.js";

export function registerAuditCommands(program: Command, { io, setExit }: CommandContext): void {
  const logOf = (flag: string | undefined) =>
    settingsFrom(io.env).pick({ flag: ["--log", flag], env: "CARTOGRAPHER_AUDIT_LOG" })?.value;
  const audit = program.command("audit").description("verify and export the audit log (offline)");
  audit
    .command("verify")
    .description(
      "verify the hash chain (and signatures with --public-key); exit 0 valid, 1 broken, 2 usage",
    )
    .option("--log <path>", "audit log file (default: $CARTOGRAPHER_AUDIT_LOG)")
    .option("--archive <dir>", "archive directory of rotated segments")
    .option("--public-key <hex>", "Ed25519 public key (hex) to check signatures")
    .action(async (opts: { log?: string; archive?: string; publicKey?: string }) => {
      setExit(await runAuditVerify({ ...opts, log: logOf(opts.log) }, io));
    });
  audit
    .command("export")
    .description(
      "verify, then write a JSON report of events and counts; writes nothing if the chain does not verify",
    )
    .option("--log <path>", "audit log file (default: $CARTOGRAPHER_AUDIT_LOG)")
    .option("--out <file>", "output file (default: stdout)")
    .option("--archive <dir>", "archive directory of rotated segments")
    .option("--public-key <hex>", "Ed25519 public key (hex) to check signatures")
    .action(async (opts: { log?: string; out?: string; archive?: string; publicKey?: string }) => {
      setExit(await runAuditExport({ ...opts, log: logOf(opts.log) }, io));
    });
}
