/**
 * `service restart --wait`: polls the service's /health until it answers with the expected
 * version (the new process, not the old one still draining), within a bounded wait.
 */
import { ClientError } from "../errors.js";
import { type FetchFn, fetchHealth } from "../health.js";

export interface AwaitOptions {
  timeoutMs: number;
  intervalMs?: number;
  fetchFn?: FetchFn;
}

/** Resolves when `base`/health reports `version`; throws, saying what it last saw, at the timeout. */
export async function awaitVersion(
  base: string,
  version: string,
  { timeoutMs, intervalMs = 250, fetchFn = fetch }: AwaitOptions,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer yet";
  for (;;) {
    try {
      const health = await fetchHealth(base, fetchFn, Math.min(2000, timeoutMs));
      if (health.version === version) return;
      last = `it reports version ${health.version || "(none)"}`;
    } catch (err) {
      if (!(err instanceof ClientError)) throw err;
      last = err.message;
    }
    if (Date.now() + intervalMs > deadline)
      throw new Error(
        `the service at ${base} did not report version ${version} within ${timeoutMs / 1000} s (${last}): see cartographer service status and the service's log`,
      );
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
