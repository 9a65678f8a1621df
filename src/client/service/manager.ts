/**
 * Installs and drives the server as a native user service: a systemd user unit on Linux, a
 * launchd agent on macOS (the Go implementation's `cartographer service`). Files are written
 * here; every systemctl/launchctl call goes through the injected Runner.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { writeFileAtomic } from "../atomic-file.js";
import { plistEnvironment, renderLaunchdPlist } from "./launchd-plist.js";
import { type Runner, type RunResult, runFailure } from "./runner.js";
import {
  DEFAULT_SERVICE_HTTP,
  LAUNCHD_LABEL,
  type ServiceSpec,
  SYSTEMD_UNIT,
  servicePaths,
} from "./spec.js";
import { renderSystemdUnit, unitEnvironment } from "./systemd-unit.js";

export interface ServiceHost {
  platform: NodeJS.Platform;
  home: string;
  /** The user id launchd's gui/<uid> domain names. */
  uid: number;
  run: Runner;
}

export interface ServiceState {
  /** The unit/plist file. */
  file: string;
  installed: boolean;
  running: boolean;
  /** host:port the installed service listens on. */
  http: string;
}

export interface ServiceManager {
  install(spec: ServiceSpec): Promise<string>;
  uninstall(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  restart(): Promise<void>;
  state(): Promise<ServiceState>;
}

export function serviceManager(host: ServiceHost): ServiceManager {
  if (host.platform === "linux") return systemdManager(host);
  if (host.platform === "darwin") return launchdManager(host);
  throw new Error(
    `cartographer service supports Linux (systemd) and macOS (launchd), not ${host.platform}: run cartographer serve under your own supervisor`,
  );
}

async function must(host: ServiceHost, program: string, args: string[]): Promise<RunResult> {
  const result = await host.run(program, args);
  if (result.code !== 0) throw runFailure(program, args, result);
  return result;
}

/** Written atomically, 0644 as systemd and launchd expect, never through a link out of home. */
const writeUnitFile = (host: ServiceHost, path: string, text: string) =>
  writeFileAtomic(path, text, { mode: 0o644, within: [host.home] });

async function installedHttp(file: string, read: (text: string) => Record<string, string>) {
  if (!existsSync(file)) return DEFAULT_SERVICE_HTTP;
  return read(await readFile(file, "utf8")).CARTOGRAPHER_HTTP ?? DEFAULT_SERVICE_HTTP;
}

function systemdManager(host: ServiceHost): ServiceManager {
  const file = servicePaths(host.home).systemdUnit;
  const ctl = (...args: string[]) => must(host, "systemctl", ["--user", ...args]);
  const notInstalled = () => {
    if (!existsSync(file))
      throw new Error(`no service is installed (${file}): run cartographer service install`);
  };
  return {
    async install(spec) {
      await writeUnitFile(host, file, renderSystemdUnit(spec));
      await ctl("daemon-reload");
      // restart, not start: a second install must run the unit just written.
      await ctl("enable", SYSTEMD_UNIT);
      await ctl("restart", SYSTEMD_UNIT);
      return file;
    },
    async uninstall() {
      // Best effort: a unit that never loaded cannot be disabled, and is gone all the same.
      await host.run("systemctl", ["--user", "disable", "--now", SYSTEMD_UNIT]);
      await rm(file, { force: true });
      await ctl("daemon-reload");
    },
    async start() {
      notInstalled();
      await ctl("start", SYSTEMD_UNIT);
    },
    async stop() {
      notInstalled();
      await ctl("stop", SYSTEMD_UNIT);
    },
    async restart() {
      notInstalled();
      await ctl("restart", SYSTEMD_UNIT);
    },
    async state() {
      const installed = existsSync(file);
      // is-active exits non-zero for anything but active; its stdout names the state.
      const active = installed
        ? (await host.run("systemctl", ["--user", "is-active", SYSTEMD_UNIT])).stdout.trim()
        : "";
      return {
        file,
        installed,
        running: active === "active",
        http: await installedHttp(file, unitEnvironment),
      };
    },
  };
}

function launchdManager(host: ServiceHost): ServiceManager {
  const { launchdPlist: file, launchdLog } = servicePaths(host.home);
  const domain = `gui/${host.uid}`;
  const target = `${domain}/${LAUNCHD_LABEL}`;
  const loaded = async () => (await host.run("launchctl", ["print", target])).code === 0;
  const notInstalled = () => {
    if (!existsSync(file))
      throw new Error(`no service is installed (${file}): run cartographer service install`);
  };
  return {
    async install(spec) {
      await mkdir(dirname(launchdLog), { recursive: true });
      await writeUnitFile(host, file, renderLaunchdPlist(spec, launchdLog));
      // Best effort: bootout fails when the agent was not loaded yet (a first install).
      await host.run("launchctl", ["bootout", target]);
      await must(host, "launchctl", ["bootstrap", domain, file]);
      return file;
    },
    async uninstall() {
      await host.run("launchctl", ["bootout", target]);
      await rm(file, { force: true });
    },
    async start() {
      notInstalled();
      if (!(await loaded())) await must(host, "launchctl", ["bootstrap", domain, file]);
      else await must(host, "launchctl", ["kickstart", target]);
    },
    async stop() {
      notInstalled();
      // The agent keeps running on failure (KeepAlive): stopping is unloading it.
      if (await loaded()) await must(host, "launchctl", ["bootout", target]);
    },
    async restart() {
      notInstalled();
      if (!(await loaded())) await must(host, "launchctl", ["bootstrap", domain, file]);
      else await must(host, "launchctl", ["kickstart", "-k", target]);
    },
    async state() {
      const installed = existsSync(file);
      const printed = installed ? await host.run("launchctl", ["print", target]) : null;
      return {
        file,
        installed,
        running: printed?.code === 0 && /\bstate = running\b/.test(printed.stdout),
        http: await installedHttp(file, plistEnvironment),
      };
    },
  };
}
