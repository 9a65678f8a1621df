/**
 * The client commands, each `(io, options) => Promise<exitCode>`. The CLI wires them into
 * commander; nothing here reads process.env or argv (the CLI passes home, cwd and env in).
 */
export { type ConnectOptions, connect } from "./commands/connect.js";
export { type DisconnectOptions, disconnect } from "./commands/disconnect.js";
export { type DoctorOptions, doctor } from "./commands/doctor.js";
export {
  type CommandIo,
  type CommonOptions,
  EXIT_DRIFT,
  EXIT_ERROR,
  EXIT_OK,
} from "./commands/io.js";
export { reconnect } from "./commands/reconnect.js";
export { type StatusOptions, status } from "./commands/status.js";
export { sync } from "./commands/sync.js";
