/**
 * Checked layering (README "Layout", decisions.md "Structure"): imports point one way,
 * common → kb → search → tools → auth/audit → runtime → mcp → console → http → cli, with logger/version
 * at the bottom and client a leaf that talks to servers over HTTP only (using src/common
 * alone). Fails on an upward or sideways import (type-only ones too: they couple the layers as
 * much), on any import cycle (type-only imports included), on file or process access reachable
 * from the pure KB core, and on `process.env` below the CLI.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadSources, parseModule, REPO_ROOT, type SourceModule } from "./sources.js";

/** Rank of each top-level unit of src/: a unit imports only units of a lower rank. */
const LAYERS: Record<string, number> = {
  "logger.ts": 0,
  "version.ts": 0,
  // The rules both sides apply (error codes, path containment, atomic writes, the cross-process
  // lock, the byte rules of provisioning artifacts): the only server code the client uses.
  common: 0.5,
  kb: 1,
  search: 2,
  tools: 3,
  auth: 4,
  audit: 4,
  runtime: 4.5,
  // Reads the runtimes at scrape time; the call pipeline (mcp) and the HTTP route use it.
  metrics: 4.7,
  mcp: 5,
  // The governance console: pages over the tools (mcp), served by http.
  console: 5.5,
  http: 6,
  client: 6,
  cli: 7,
};

/** The client reaches a server over HTTP only; of the server's code it may use just these units. */
const CLIENT_MAY_IMPORT = new Set(["logger.ts", "version.ts", "common"]);

/** Imports whose presence in the pure core means file, process or network access. */
const IO_MODULE =
  /^(node:)?(fs|fs\/promises|child_process|net|http|https|os|worker_threads|dgram|tls)$|^better-sqlite3$/;

function unitOf(file: string): string {
  const slash = file.indexOf("/");
  return slash === -1 ? file : file.slice(0, slash);
}

/** `from → to` lines for every import that breaks the layer order. */
function layerViolations(modules: SourceModule[]): string[] {
  const out: string[] = [];
  for (const m of modules) {
    const from = unitOf(m.file);
    if (!(from in LAYERS)) {
      out.push(`${m.file}: unit "${from}" has no layer; add it to LAYERS and README's Layout`);
      continue;
    }
    for (const imp of m.imports) {
      if (imp.target === null) continue;
      const to = unitOf(imp.target);
      if (to === from) continue;
      const where = `${m.file}:${imp.line} → ${imp.target}`;
      if (!(to in LAYERS)) out.push(`${where}: unit "${to}" has no layer`);
      else if (from === "client" && !CLIENT_MAY_IMPORT.has(to))
        out.push(`${where}: client talks to the server over HTTP only`);
      else if ((LAYERS[to] as number) >= (LAYERS[from] as number))
        out.push(`${where}: ${to} is not below ${from}`);
    }
  }
  return out;
}

/** Every strongly connected set of files over value imports (Tarjan), size > 1 or a self-import. */
function valueCycles(modules: SourceModule[]): string[][] {
  return importCycles(modules, { withTypeOnly: false });
}

/** The same over every import, type-only ones included. */
function importCycles(modules: SourceModule[], { withTypeOnly }: { withTypeOnly: boolean }) {
  const edges = new Map<string, string[]>();
  for (const m of modules)
    edges.set(
      m.file,
      m.imports
        .filter((i) => (withTypeOnly || !i.typeOnly) && i.target !== null)
        .map((i) => i.target as string),
    );
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (edges.get(v) ?? []).includes(v)) cycles.push(scc.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) connect(v);
  return cycles;
}

/** The patterns of biome.json's noRestrictedImports override (one list): files or `dir/**`. */
function purePatterns(): string[] {
  const biome = JSON.parse(readFileSync(path.join(REPO_ROOT, "biome.json"), "utf8")) as {
    overrides: { includes: string[]; linter?: { rules?: { style?: object } } }[];
  };
  const rule = biome.overrides.find(
    (o) => o.linter?.rules?.style && "noRestrictedImports" in o.linter.rules.style,
  );
  return (rule?.includes ?? []).map((p) => p.replace(/^src\//, ""));
}

function matchesPattern(file: string, pattern: string): boolean {
  return pattern.endsWith("/**") ? file.startsWith(pattern.slice(0, -2)) : file === pattern;
}

/** For each pure file that reaches an I/O module through value imports: the chain. */
function impureChains(modules: SourceModule[], pure: string[]): string[] {
  const byFile = new Map(modules.map((m) => [m.file, m]));
  const reach = (file: string, seen: Set<string>): string | null => {
    if (seen.has(file)) return null;
    seen.add(file);
    for (const imp of byFile.get(file)?.imports ?? []) {
      if (imp.typeOnly) continue;
      if (imp.target === null) {
        if (IO_MODULE.test(imp.specifier)) return `${file} imports ${imp.specifier}`;
      } else {
        const via = reach(imp.target, seen);
        if (via) return `${file} → ${via}`;
      }
    }
    return null;
  };
  return pure.map((f) => reach(f, new Set())).filter((c): c is string => c !== null);
}

describe("layering of src/", () => {
  const modules = loadSources();

  it("every import points down the layers (README Layout)", () => {
    expect(layerViolations(modules)).toEqual([]);
  });

  it("there is no value-import cycle between modules", () => {
    expect(valueCycles(modules)).toEqual([]);
  });

  // A type-only cycle vanishes at run time but still ties two modules together, and becomes a
  // value cycle with the first constant that moves along (decisions.md "A piece two modules
  // share moves down"): none anywhere in src/.
  it("there is no import cycle at all, type-only imports included", () => {
    expect(importCycles(modules, { withTypeOnly: true })).toEqual([]);
  });

  it("the pure KB core reaches no file, process or network access, even indirectly", () => {
    const patterns = purePatterns();
    for (const p of patterns)
      expect(
        modules.some((m) => matchesPattern(m.file, p)),
        `${p} listed but matches no file`,
      ).toBe(true);
    const pure = modules
      .filter((m) => patterns.some((p) => matchesPattern(m.file, p)))
      .map((m) => m.file);
    expect(pure.length).toBeGreaterThan(10);
    expect(impureChains(modules, pure)).toEqual([]);
  });

  it("nothing below the CLI reads process.env or process.argv", () => {
    const readers = modules
      .filter((m) => unitOf(m.file) !== "cli" && /\bprocess\.(env|argv)\b/.test(m.text))
      .map((m) => m.file);
    expect(readers).toEqual([]);
  });
});

describe("the layering rules catch what they are for", () => {
  const mod = (file: string, text: string) => parseModule(file, text);

  it("an upward, a sideways and a client import are reported; a type import upward too", () => {
    const found = layerViolations([
      mod("kb/x.ts", 'import { a } from "../search/y.js";'),
      mod("auth/x.ts", 'import { b } from "../audit/y.js";'),
      mod("client/x.ts", 'import { c } from "../kb/store.js";'),
      mod("search/x.ts", 'import type { D } from "../tools/spec.js";'),
      mod("mcp/x.ts", 'import { e } from "../kb/ids.js";\nexport { f } from "../tools/spec.js";'),
      mod("client/y.ts", 'import { writeFileAtomic } from "../common/atomic-write.js";'),
    ]);
    expect(found).toEqual([
      "kb/x.ts:1 → search/y.ts: search is not below kb",
      "auth/x.ts:1 → audit/y.ts: audit is not below auth",
      "client/x.ts:1 → kb/store.ts: client talks to the server over HTTP only",
      "search/x.ts:1 → tools/spec.ts: tools is not below search",
    ]);
  });

  it("a value cycle is found; the same cycle through a type-only import only with types", () => {
    const cyclic = valueCycles([
      mod("kb/a.ts", 'import { b } from "./b.js";'),
      mod("kb/b.ts", 'import { a } from "./a.js";'),
    ]);
    expect(cyclic).toEqual([["kb/a.ts", "kb/b.ts"]]);
    const typeOnly = [
      mod("kb/a.ts", 'import { b } from "./b.js";'),
      mod("kb/b.ts", 'import { type A } from "./a.js";'),
    ];
    expect(valueCycles(typeOnly)).toEqual([]);
    expect(importCycles(typeOnly, { withTypeOnly: true })).toEqual([["kb/a.ts", "kb/b.ts"]]);
  });

  it("an I/O import two steps away from a pure file is reported with its chain", () => {
    const chains = impureChains(
      [
        mod("kb/ids.ts", 'import { p } from "./paths.js";'),
        mod("kb/paths.ts", 'import { s } from "./store.js";'),
        mod("kb/store.ts", 'import { readFile } from "node:fs/promises";'),
      ],
      ["kb/ids.ts"],
    );
    expect(chains).toEqual(["kb/ids.ts → kb/paths.ts → kb/store.ts imports node:fs/promises"]);
  });
});
