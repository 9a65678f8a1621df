/**
 * docs/decisions.md "A file that vanishes between the walk and its stat or read is skipped" (walk
 * part): files moved or deleted while a reader walks, stats or reads them are skipped — never
 * `internal: ENOENT`, never listed as an empty file. Real store, real files: one writer churns
 * concepts, expanded folders and assets on disk (as an outside editor or a concurrent tool write
 * does; reads take no lock) while readers list, read and reconcile.
 */
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isKbError } from "../../../src/common/errors.js";
import type { SqliteSearchIndex } from "../../../src/search/index.js";
import { refreshKbIndex } from "../../../src/search/kb-index.js";
import { allTools } from "../../../src/tools/registry.js";
import { callTool } from "../../support/call-tool.js";
import { makeTempKb, type TempKb } from "../../support/tool-kb.js";

const N = 40;
const ASSET = "x".repeat(100);
const note = (i: number) =>
  `---\ntype: note\ntitle: Note ${i}\n---\nBody ${i} [[m/n${(i + 1) % N}]]\n`;

let kb: TempKb;

function files(): Record<string, string> {
  const out: Record<string, string> = { "data/m/_map.md": "---\ntype: Map\nkind: map\n---\n" };
  for (let i = 0; i < N; i++) {
    out[`data/m/n${i}.md`] = note(i);
    out[`data/m/e${i}/index.md`] = note(i);
    out[`data/m/e${i}/sat.md`] = note(i);
    out[`data/m/a${i}.bin`] = ASSET;
  }
  return out;
}

async function call(name: string, args: Record<string, unknown> = {}): Promise<unknown> {
  const spec = allTools().find((s) => s.name === name);
  if (!spec) throw new Error(`no tool ${name}`);
  return callTool(kb.runtime, spec, args);
}

beforeAll(async () => {
  kb = await makeTempKb({ files: files() });
});
afterAll(async () => kb?.cleanup());

/** Moves and deletes files and folders on disk, then puts them back, until `stop()`. */
function churn(root: string): { stop: () => Promise<void> } {
  let running = true;
  const d = (p: string) => join(root, "data", "m", p);
  const loop = (async () => {
    for (let round = 0; running; round++) {
      const i = round % N;
      await rename(d(`n${i}.md`), d(`moved-n${i}.md`));
      await rename(d(`e${i}`), d(`moved-e${i}`));
      await rm(d(`a${i}.bin`));
      await new Promise((r) => setImmediate(r));
      await rename(d(`moved-n${i}.md`), d(`n${i}.md`));
      await rm(d(`moved-e${i}`), { recursive: true });
      await mkdir(d(`e${i}`));
      await writeFile(d(`e${i}/index.md`), note(i));
      await writeFile(d(`e${i}/sat.md`), note(i));
      await writeFile(d(`a${i}.bin`), ASSET);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

const MIN_ROUNDS = 3;

describe("reads during concurrent moves and deletes", () => {
  it("never fail with internal/ENOENT and never list a vanished asset as empty", async () => {
    const failures: string[] = [];
    const guard = async (what: string, fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (e) {
        // A concept moved away between list and read is a fair not_found; anything else is not.
        if (isKbError(e, "not_found")) return;
        failures.push(`${what}: ${(e as Error).message}`);
      }
    };
    const { store } = kb.runtime;
    const writer = churn(kb.root);
    const deadline = Date.now() + 2_500;
    let rounds = 0;
    try {
      // At least MIN_ROUNDS however slow a loaded machine is, then until the deadline.
      while (rounds < MIN_ROUNDS || Date.now() < deadline) {
        rounds++;
        const i = rounds % N;
        await Promise.all([
          guard("listConcepts", () => store.listConcepts()),
          guard("scanConceptFiles", () => store.scanConceptFiles()),
          guard("asset_list", async () => {
            for (const a of (await store.assets()) as Array<{ path: string; size: number }>) {
              if (a.size !== ASSET.length)
                failures.push(`asset_list: ${a.path} listed as ${a.size} bytes`);
            }
          }),
          guard("concept_read", () => call("concept_read", { id: `m/e${i}` })),
          guard("concept_read sat", () => call("concept_read", { id: `m/e${i}/sat` })),
          guard("graph_neighbors", () => call("graph_neighbors", { id: `m/n${i}` })),
          guard("lint", () => call("lint", {})),
          guard("reconcile", () =>
            refreshKbIndex(store, kb.runtime.index as SqliteSearchIndex, {
              bulkReadThreshold: 1e9,
            }),
          ),
        ]);
      }
    } finally {
      await writer.stop();
    }
    expect(failures).toEqual([]);
  });

  it("tool moves and deletes interleaved with tool reads answer results or not_found only", async () => {
    const failures: string[] = [];
    let running = true;
    const writer = (async () => {
      for (let round = 0; running; round++) {
        const i = round % N;
        try {
          await call("concept_move", { from: `m/e${i}`, to: `m/x${i}`, rewrite_links: false });
          await call("concept_move", { from: `m/x${i}`, to: `m/e${i}`, rewrite_links: false });
          await call("concept_delete", { id: `m/n${i}` });
          await call("concept_write", {
            id: `m/n${i}`,
            frontmatter: { type: "note" },
            body: "b\n",
          });
        } catch (e) {
          failures.push(`writer: ${(e as Error).message}`);
        }
      }
    })();
    const deadline = Date.now() + 2_000;
    try {
      while (Date.now() < deadline) {
        const i = Math.floor(Math.random() * N);
        await Promise.all(
          [
            () => call("concept_read", { id: `m/e${i}` }),
            () => call("concept_read", { id: `m/x${i}/sat` }),
            () => call("concept_list", { prefix: "m/" }),
            () => call("search", { query: `Note ${i}` }),
            () => call("asset_list", {}),
            () => call("graph_neighbors", { id: `m/n${i}` }),
          ].map(async (fn) => {
            try {
              await fn();
            } catch (e) {
              if (!isKbError(e, "not_found")) failures.push((e as Error).message);
            }
          }),
        );
      }
    } finally {
      running = false;
      await writer;
    }
    expect(failures).toEqual([]);
  });
});
