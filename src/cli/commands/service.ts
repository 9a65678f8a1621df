/**
 * `cartographer service install|uninstall|start|stop|restart|status`: the server as a native
 * user service (systemd user unit on Linux, launchd agent on macOS), as the Go implementation's
 * command, with its exit codes: status 0 running, 3 installed but stopped, 4 not installed;
 * the other actions 0 done, 2 failed.
 */
import { mkdirSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { ClientError } from "../../client/errors.js";
import { type FetchFn, fetchHealth } from "../../client/health.js";
import { awaitVersion } from "../../client/service/await-version.js";
import { type ServiceHost, serviceManager } from "../../client/service/manager.js";
import { execRunner } from "../../client/service/runner.js";
import { serviceSpec } from "../../client/service/spec.js";
import { VERSION } from "../../version.js";
import type { CommandContext } from "../command-context.js";
import { parseHttpAddress } from "../config/values.js";
import { CliExit, type CliIo } from "../io.js";

export const EXIT_SERVICE_FAILED = 2;
export const EXIT_SERVICE_STOPPED = 3;
export const EXIT_SERVICE_NOT_INSTALLED = 4;

/** What the command touches beyond its io: injected by tests. */
export interface ServiceDeps {
  host: ServiceHost;
  /** The node binary and the package's bin the service runs. */
  node: string;
  bin: string;
  version: string;
  fetchFn?: FetchFn;
}

export interface ServiceFlags {
  config?: string;
  data?: string;
  http?: string;
  wait?: boolean;
  timeout?: string;
  json?: boolean;
}

function realDeps(io: CliIo): ServiceDeps {
  return {
    host: {
      platform: process.platform,
      home: io.env.HOME ?? homedir(),
      uid: userInfo().uid,
      run: execRunner(),
    },
    node: process.execPath,
    // dist/cli/commands/service.js → dist/cli/main.js, the package's bin.
    bin: fileURLToPath(new URL("../main.js", import.meta.url)),
    version: VERSION,
  };
}

const urlOf = (http: string) => `http://${http}`;

/** `--http` as host:port: the CLI asks the service's /health there, so port 0 cannot do. */
function listenAddress(value: string): string {
  const { host, port } = parseHttpAddress(value, "--http");
  if (port === 0)
    throw new CliExit(
      EXIT_SERVICE_FAILED,
      "--http: a service needs a fixed port (not 0) for its clients to find it; e.g. 127.0.0.1:39273",
    );
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Runs one action; any failure is exit 2 with its message. */
export async function serviceCommand(
  io: CliIo,
  action: string,
  flags: ServiceFlags,
  deps: ServiceDeps = realDeps(io),
): Promise<number> {
  try {
    return await runAction(io, action, flags, deps);
  } catch (err) {
    if (err instanceof CliExit) throw err;
    throw new CliExit(EXIT_SERVICE_FAILED, (err as Error).message);
  }
}

async function runAction(
  io: CliIo,
  action: string,
  flags: ServiceFlags,
  deps: ServiceDeps,
): Promise<number> {
  const manager = serviceManager(deps.host);
  const say = (line: string) => io.stdout.write(`${line}\n`);
  switch (action) {
    case "install": {
      const at = (p?: string) => (p === undefined ? undefined : resolve(io.cwd, p));
      const spec = serviceSpec({
        node: deps.node,
        bin: deps.bin,
        home: deps.host.home,
        config: at(flags.config),
        data: at(flags.data),
        http: flags.http === undefined ? undefined : listenAddress(flags.http),
      });
      const data = spec.env.find(([k]) => k === "CARTOGRAPHER_DATA")?.[1];
      if (data !== undefined) mkdirSync(data, { recursive: true });
      const file = await manager.install(spec);
      const http = spec.env.find(([k]) => k === "CARTOGRAPHER_HTTP")?.[1] as string;
      say(`service installed and started (${file}), listening on ${urlOf(http)}`);
      say(`connect agent tools with: cartographer connect --server-url ${urlOf(http)}`);
      return 0;
    }
    case "uninstall":
      await manager.uninstall();
      say("service uninstalled (its config and KB data are kept)");
      return 0;
    case "start":
      await manager.start();
      say("service started");
      return 0;
    case "stop":
      await manager.stop();
      say("service stopped");
      return 0;
    case "restart":
      return restart(io, flags, deps);
    case "status":
      return status(io, flags, deps);
    default:
      throw new CliExit(
        EXIT_SERVICE_FAILED,
        `unknown service action '${action}': use install, uninstall, start, stop, restart or status`,
      );
  }
}

async function restart(io: CliIo, flags: ServiceFlags, deps: ServiceDeps): Promise<number> {
  const manager = serviceManager(deps.host);
  await manager.restart();
  if (!flags.wait) {
    io.stdout.write("service restarted\n");
    return 0;
  }
  const seconds = flags.timeout === undefined ? 30 : Number(flags.timeout);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new CliExit(
      EXIT_SERVICE_FAILED,
      `--timeout must be a number of seconds above 0, got '${flags.timeout}'`,
    );
  const { http } = await manager.state();
  await awaitVersion(urlOf(http), deps.version, {
    timeoutMs: seconds * 1000,
    ...(deps.fetchFn ? { fetchFn: deps.fetchFn } : {}),
  });
  io.stdout.write(`service restarted; ${urlOf(http)} serves version ${deps.version}\n`);
  return 0;
}

async function status(io: CliIo, flags: ServiceFlags, deps: ServiceDeps): Promise<number> {
  const st = await serviceManager(deps.host).state();
  const health = st.running
    ? await fetchHealth(urlOf(st.http), deps.fetchFn, 2000).catch((err: unknown) => {
        if (err instanceof ClientError) return null;
        throw err;
      })
    : null;
  const state = !st.installed ? "not_installed" : st.running ? "running" : "stopped";
  if (flags.json) {
    const report = {
      state,
      installed: st.installed,
      running: st.running,
      healthy: health !== null,
      http: st.http,
      file: st.file,
      ...(health ? { version: health.version } : {}),
    };
    io.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    const healthy = health ? `true (version ${health.version})` : "false";
    io.stdout.write(
      `file:      ${st.file}\ninstalled: ${st.installed}\nrunning:   ${st.running}\nhealthy:   ${healthy} (${urlOf(st.http)})\n`,
    );
  }
  if (!st.installed) return EXIT_SERVICE_NOT_INSTALLED;
  return st.running ? 0 : EXIT_SERVICE_STOPPED;
}

const EXIT_HELP = `
Exit codes: status: 0 running, 3 installed but stopped, 4 not installed; the other actions:
0 done, 2 failed (the message names the command that failed and what it said).`;

export function registerServiceCommands(program: Command, { io, setExit }: CommandContext): void {
  const service = program
    .command("service")
    .description("run the server as a native user service (systemd on Linux, launchd on macOS)")
    .addHelpText("after", EXIT_HELP);
  const act = (action: string) => async (flags: ServiceFlags) => {
    setExit(await serviceCommand(io, action, flags));
  };
  service
    .command("install")
    .description("write the user unit (or launchd agent), enable and start it")
    .option("--config <file>", "server config the service runs with (serve --config)")
    .option(
      "--data <dir>",
      "data directory (default ~/cartographer-data unless --config names one)",
    )
    .option("--http <host:port>", "listen address (default 127.0.0.1:39273)")
    .action(act("install"));
  service.command("uninstall").description("stop and remove the service").action(act("uninstall"));
  service.command("start").description("start the service").action(act("start"));
  service.command("stop").description("stop the service").action(act("stop"));
  service
    .command("restart")
    .description("restart the service")
    .option("--wait", "return only when /health reports this version")
    .option("--timeout <seconds>", "how long --wait waits (default 30)")
    .action(act("restart"));
  service
    .command("status")
    .description("installed, running and healthy; exit 0 running, 3 stopped, 4 not installed")
    .option("--json", "one JSON object")
    .action(act("status"));
}
