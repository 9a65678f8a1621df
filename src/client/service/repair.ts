/**
 * The service part of `cartographer upgrade-repair`, as the Go command's: a native service that
 * is installed and running but serves another version than this package is restarted and
 * waited for until /health reports the new version; a stopped service stays stopped; no service
 * is nothing to do. A service already serving this version is not restarted (no second drain).
 */
import { ClientError } from "../errors.js";
import { type FetchFn, fetchHealth } from "../health.js";
import { awaitVersion } from "./await-version.js";
import type { ServiceManager } from "./manager.js";

export interface ServiceRepairDeps {
  manager: ServiceManager;
  /** The version this package is. */
  version: string;
  fetchFn?: FetchFn;
  /** How long the restarted service may take to answer with `version`. */
  timeoutMs: number;
}

export type ServiceRepairState =
  | "not-installed"
  | "stopped"
  | "current"
  | "restarted"
  | "would-restart"
  | "failed";

export interface ServiceRepair {
  state: ServiceRepairState;
  /** One line for the summary. */
  message: string;
  /** host:port the service listens on, when installed. */
  http?: string;
}

export async function repairService(
  deps: ServiceRepairDeps,
  dryRun: boolean,
): Promise<ServiceRepair> {
  const st = await deps.manager.state();
  if (!st.installed) return { state: "not-installed", message: "no native service installed" };
  const base = `http://${st.http}`;
  if (!st.running) {
    return {
      state: "stopped",
      http: st.http,
      message: `the native service is stopped; left stopped (cartographer service start when you want it)`,
    };
  }
  const seen = await fetchHealth(base, deps.fetchFn, 2000).catch((err: unknown) => {
    if (err instanceof ClientError) return undefined;
    throw err;
  });
  // A development build has no version of its own to wait for (Go's rule).
  if (seen && (seen.version === deps.version || deps.version === "dev")) {
    return { state: "current", http: st.http, message: `${base} already serves ${seen.version}` };
  }
  const was = seen ? `version ${seen.version || "(none)"}` : "no answer";
  if (dryRun) {
    return {
      state: "would-restart",
      http: st.http,
      message: `would restart the native service (${base}: ${was}) and wait for ${deps.version}`,
    };
  }
  try {
    await deps.manager.restart();
    await awaitVersion(base, deps.version, {
      timeoutMs: deps.timeoutMs,
      ...(deps.fetchFn ? { fetchFn: deps.fetchFn } : {}),
    });
  } catch (err) {
    return { state: "failed", http: st.http, message: (err as Error).message };
  }
  return {
    state: "restarted",
    http: st.http,
    message: `restarted the native service (was ${was}); ${base} serves ${deps.version}`,
  };
}
