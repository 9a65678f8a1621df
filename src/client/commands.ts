/**
 * The client commands, each `(io, options) => Promise<exitCode>`. The CLI wires them into
 * commander; nothing here reads process.env or argv (the CLI passes home, cwd and env in).
 */
export { connect, type ConnectOptions } from "./commands/connect.js";
export { disconnect, type DisconnectOptions } from "./commands/disconnect.js";
export { doctor, type DoctorOptions } from "./commands/doctor.js";
export {
  type CommandIo,
  type CommonOptions,
  EXIT_DRIFT,
  EXIT_ERROR,
  EXIT_OK,
} from "./commands/io.js";
export { reconnect } from "./commands/reconnect.js";
export { status, type StatusOptions } from "./commands/status.js";
export { sync } from "./commands/sync.js";
