/**
 * Stops a server whose npm script runner is gone. `npm start` runs `sh -c "node …"`; a SIGTERM
 * to npm (npm 11) reaches that shell, which dies without passing it on, and the server would run
 * on under PID 1 (docs/decisions.md, "npm start stops with npm"). When an npm script started
 * this process (`npm_lifecycle_event` is set: npm, pnpm and yarn set it), a parent PID that
 * changes means the runner went away: `onGone` runs once, as a SIGTERM would.
 */

/** How often the parent PID is compared (a stop takes at most this long to notice). */
export const LAUNCHER_POLL_MS = 500;

/** Starts watching when `env` says an npm script runs us; returns a function that stops it. */
export function watchLauncher(
  env: Record<string, string | undefined>,
  onGone: () => void,
  pollMs = LAUNCHER_POLL_MS,
): () => void {
  if (env.npm_lifecycle_event === undefined) return () => {};
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, pollMs);
  timer.unref();
  return () => clearInterval(timer);
}
