/**
 * Worker threads that run one of the package's own modules, from dist/ or from source alike.
 * Built, the module is the `.js` beside its caller (the bundle rewrites each source file's
 * `import.meta.url` to its tsc-built URL, scripts/bundle.ts). From source (tsx, vitest) it is the
 * `.ts` file, and the thread first registers tsx's loader: Node 20 does not apply `--import`
 * hooks to a worker's entry module.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/** The worker module `./<name>.ts` or `./<name>.js` beside the caller (`callerUrl`: its import.meta.url). */
export function siblingModule(callerUrl: string, name: string): URL {
  return new URL(`./${name}${callerUrl.endsWith(".ts") ? ".ts" : ".js"}`, callerUrl);
}

const TSX_THEN_ENTRY = `
const { workerData: data } = require("node:worker_threads");
import(data.tsx).then((api) => api.register()).then(() => import(data.entry));
`;

/** Starts a thread running the module at `url` (from siblingModule). */
export function startModuleWorker(url: URL): Worker {
  if (!url.pathname.endsWith(".ts")) return new Worker(url);
  const tsxPackage = createRequire(import.meta.url).resolve("tsx/package.json");
  const tsx = pathToFileURL(path.join(path.dirname(tsxPackage), "dist/esm/api/index.mjs")).href;
  return new Worker(TSX_THEN_ENTRY, { eval: true, workerData: { tsx, entry: url.href } });
}
