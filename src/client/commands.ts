/**
 * The client commands, each `(io, options) => Promise<exitCode>`. The CLI wires them into
 * commander; nothing here reads process.env or argv (the CLI passes home, cwd and env in).
 */
export { type ApproveOptions, approve } from "./commands/approve.js";
export { type ConnectOptions, connect } from "./commands/connect.js";
export { type DisconnectOptions, disconnect } from "./commands/disconnect.js";
export { type DoctorOptions, doctor } from "./commands/doctor.js";
export { reconnect } from "./commands/reconnect.js";
export { type RevokeOptions, revoke } from "./commands/revoke.js";
export { type StatusOptions, status } from "./commands/status.js";
export { type SyncOptions, sync } from "./commands/sync.js";
export { type TrustCommandOptions, trust } from "./commands/trust.js";
export {
  type CommandIo,
  type CommonOptions,
  EXIT_DRIFT,
  EXIT_ERROR,
  EXIT_OK,
} from "./lib/io.js";
