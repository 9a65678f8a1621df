/**
 * What the native user service runs: `<node> <the package's bin> serve [--config FILE]` with the
 * data directory and listen address in its environment. Pure: paths come in absolute, and
 * both unit writers (systemd-unit.ts, launchd-plist.ts) render the same spec.
 */
import { isAbsolute, join } from "node:path";

export const DEFAULT_SERVICE_HTTP = "127.0.0.1:39273";
export const SYSTEMD_UNIT = "cartographer.service";
export const LAUNCHD_LABEL = "com.cartographer.serve";

export interface ServiceSpec {
  /** Absolute path of the node binary: a service has no shell PATH to find `node` on. */
  node: string;
  /** Absolute path of the package's bin (dist/cli/main.js). */
  bin: string;
  /** Arguments after the bin. */
  args: string[];
  /** CARTOGRAPHER_* settings, in this order. */
  env: Array<[string, string]>;
}

export interface InstallOptions {
  node: string;
  bin: string;
  home: string;
  /** Absolute server config file, passed as `serve --config`. */
  config?: string;
  /** Absolute data directory; without it and without config: ~/cartographer-data. */
  data?: string;
  /** host:port; default 127.0.0.1:39273. */
  http?: string;
}

/**
 * The spec for `options`. The listen address is always set, so the CLI knows where to ask the
 * service's /health; the data directory only when given or when no config file could name it
 * (docs/decisions.md "Terminal commands").
 */
export function serviceSpec(options: InstallOptions): ServiceSpec {
  for (const [what, path] of [
    ["node", options.node],
    ["bin", options.bin],
    ["config", options.config],
    ["data", options.data],
  ] as const) {
    if (path !== undefined && !isAbsolute(path))
      throw new Error(`the service's ${what} path must be absolute, got '${path}'`);
  }
  const data =
    options.data ?? (options.config ? undefined : join(options.home, "cartographer-data"));
  const env: Array<[string, string]> = [];
  if (data !== undefined) env.push(["CARTOGRAPHER_DATA", data]);
  env.push(["CARTOGRAPHER_HTTP", options.http ?? DEFAULT_SERVICE_HTTP]);
  const args = ["serve", ...(options.config ? ["--config", options.config] : [])];
  return { node: options.node, bin: options.bin, args, env };
}

/** Where the unit/agent and its log live under `home`. */
export function servicePaths(home: string) {
  return {
    systemdUnit: join(home, ".config", "systemd", "user", SYSTEMD_UNIT),
    launchdPlist: join(home, "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`),
    launchdLog: join(home, "Library", "Logs", "cartographer", "server.log"),
  };
}
