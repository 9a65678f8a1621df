/**
 * `npm run build`, second step, for a fast cold start (docs/decisions.md "The `bin` is an esbuild
 * bundle"): bundles the CLI into dist/bundle/ with esbuild and makes dist/cli/main.js (the `bin`) a
 * two-line stub that imports it. Node 20 spends most of a stdio server's start resolving, reading
 * and linking ~350 ESM files one by one (our 225, zod's 116, the SDK's); a bundle of a few chunks
 * starts as fast as a bare SDK server (docs/benchmarks.md). Code splitting keeps the lazy imports
 * lazy: `serve --stdio` still loads no HTTP, client or audit code (test/e2e/startup.test.ts). The
 * rest of dist/ (tsc's output) is untouched: tests and library users import those files as before.
 *
 * better-sqlite3 stays external (a native addon found through node_modules at run time), and so
 * do ink and react (docs/decisions.md "Dashboard"): ink's optional devtools import names a package
 * that is not installed, yoga-layout's WASM loads with a top-level await of its own, and Ink and
 * our components must share one React. Every
 * `import.meta.url` in our sources is rewritten to the URL its tsc-built file has, so paths
 * relative to a module (package.json, the package root) resolve as they do unbundled.
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SRC = path.join(ROOT, "src");
const OUT = path.join(ROOT, "dist", "bundle");
const STUB = path.join(ROOT, "dist", "cli", "main.js");

/** `import.meta.url` of src/a/b.ts becomes the URL of dist/a/b.js, computed from the chunk's. */
const moduleUrls: Plugin = {
  name: "tsc-module-urls",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(SRC + path.sep)) return undefined;
      const source = await readFile(args.path, "utf8");
      if (!source.includes("import.meta.url")) return { contents: source, loader: "ts" };
      const built = path.join(ROOT, "dist", path.relative(SRC, args.path)).replace(/\.ts$/, ".js");
      const rel = path.relative(OUT, built).split(path.sep).join("/");
      const url = `new URL(${JSON.stringify(rel)}, import.meta.url).href`;
      return { contents: source.replaceAll("import.meta.url", url), loader: "ts" };
    });
  },
};

rmSync(OUT, { recursive: true, force: true });
await build({
  entryPoints: { main: path.join(SRC, "cli", "main.ts") },
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  external: ["better-sqlite3", "ink", "react"],
  // jsonc-parser's `main` is a UMD build whose factory requires ./impl/* at run time, which a
  // bundle cannot resolve ("Cannot find module './impl/format'"); its ESM build bundles.
  alias: { "jsonc-parser": "jsonc-parser/lib/esm/main.js" },
  // CommonJS dependencies (ajv, yaml) require Node built-ins: give the chunks a real require.
  banner: {
    js: 'import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);',
  },
  plugins: [moduleUrls],
  logLevel: "warning",
});
// The console's stylesheet and script are files, not modules: tsc does not copy them. They sit
// next to the built src/console/static.js, which reads them by a path relative to itself.
cpSync(path.join(SRC, "console", "static"), path.join(ROOT, "dist", "console", "static"), {
  recursive: true,
});
mkdirSync(path.dirname(STUB), { recursive: true });
writeFileSync(
  STUB,
  '#!/usr/bin/env node\n// The bundled CLI (scripts/bundle.ts); the unbundled build is src/cli/main.ts → dist/cli/program.js.\nimport "../bundle/main.js";\n',
  { mode: 0o755 },
);
