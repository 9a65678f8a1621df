/**
 * docs/audit.md's byte rule is enough to verify a log without our code: an independent Python
 * verifier (test/e2e/audit/third-party-verify.py, stdlib only) agrees with `cartographer audit
 * verify` on a real signed log written by the built server over HTTP (denials, unknown tool,
 * non-ASCII and control characters in recorded ids, fractional durations) — valid → both ok;
 * each tampered copy → both fail, at the same line, for the same reason.
 * python3 is required: without it this test FAILS (CI machines have it), it never skips.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../helpers.js";
import {
  CANARY,
  httpClient,
  PUBLIC_KEY,
  type Sandbox,
  SEED,
  sandbox,
  verifyCli,
  writeConfig,
} from "./helpers.js";

const SCRIPT = resolve(import.meta.dirname, "./third-party-verify.py");
const OTHER_KEY = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

function python(args: string[]): { code: number; out: string } {
  const r = spawnSync("python3", [SCRIPT, ...args], { encoding: "utf8" });
  if (r.error) {
    throw new Error(
      `python3 is required for the third-party audit verification test and could not be run (${r.error.message}); install python3`,
    );
  }
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

/** `line:reason` of each break, from either verifier's output. */
function breaksOf(text: string): string[] {
  return [...text.matchAll(/:(\d+): ([a-z ]+?)(?: \(|$)/gm)].map((m) => `${m[1]}:${m[2]}`).sort();
}

let box: Sandbox;
let log: string;
let text: string;

beforeAll(async () => {
  box = await sandbox();
  const config = writeConfig(box.dir, { log: "audit/audit.jsonl" });
  const server: RunningServer = await startServer(["--config", config], {
    cwd: box.dir,
    env: { ...box.env, CARTOGRAPHER_AUDIT_KEY: SEED },
  });
  try {
    const admin = await httpClient(server.url, CANARY.adminToken);
    const reader = await httpClient(server.url, CANARY.readerToken);
    const note = { type: "note", title: "t" };
    await admin.callTool({
      name: "concept_write",
      arguments: { id: "notes-alpha", frontmatter: note, body: "b" },
    });
    await admin.callTool({ name: "concept_read", arguments: { id: "notes-alpha" } });
    // Recorded ids the hash must cover exactly: non-ASCII, a control character, a quote.
    await admin.callTool({ name: "concept_read", arguments: { id: "café/ünï😀" } });
    await admin.callTool({ name: "concept_read", arguments: { id: 'a\u0001"\\b\u2028' } });
    await reader.callTool({
      name: "concept_write",
      arguments: { id: "notes-beta", frontmatter: note, body: "b" },
    });
    await admin.callTool({ name: "no_such_tool", arguments: { id: "x" } });
    await admin.close();
    await reader.close();
  } finally {
    await server.stop();
  }
  log = join(box.dir, "audit", "audit.jsonl");
  text = readFileSync(log, "utf8");
}, 60_000);
afterAll(() => box?.cleanup());

async function both(file: string, key?: string) {
  const extra = key ? ["--public-key", key] : [];
  const ours = await verifyCli(box.dir, box.env, file, extra);
  const theirs = python([...extra, file]);
  return { ours, theirs };
}

describe("an independent verifier agrees with audit verify", () => {
  it("python3 is available (required, not optional)", () => {
    expect(() => execFileSync("python3", ["--version"])).not.toThrow();
  });

  it("the real log verifies in both, with and without the public key, with the same count", async () => {
    const lines = text.split("\n").filter((l) => l !== "");
    expect(lines.length).toBeGreaterThanOrEqual(12);
    expect(text).toContain('"outcome":"forbidden"');
    expect(text).toContain('"outcome":"unknown_tool"');
    expect(lines.some((l) => /"duration_ms":\d+\.\d+/.test(l))).toBe(true);
    for (const key of [undefined, PUBLIC_KEY]) {
      const { ours, theirs } = await both(log, key);
      expect(ours.code, ours.stderr).toBe(0);
      expect(theirs.code, theirs.out).toBe(0);
      expect(ours.stdout).toContain(`valid: ${lines.length}`);
      expect(theirs.out).toContain(`ok: ${lines.length} entries`);
    }
  });

  it("a wrong public key fails in both", async () => {
    const { ours, theirs } = await both(log, OTHER_KEY);
    expect(ours.code).toBe(1);
    expect(theirs.code).toBe(1);
    expect(breaksOf(theirs.out)).toEqual(breaksOf(ours.stderr));
  });

  const lines = () => text.split("\n").slice(0, -1);
  const join_ = (ls: string[]) => `${ls.join("\n")}\n`;
  const tampers: Record<string, () => string> = {
    "a recorded id edited": () => text.replace('"id":"notes-alpha"', '"id":"notes-alphb"'),
    "an outcome rewritten": () => text.replace('"outcome":"forbidden"', '"outcome":"success"'),
    "a middle line deleted": () => join_(lines().filter((_, i) => i !== 4)),
    "two lines swapped": () => {
      const ls = lines();
      [ls[2], ls[3]] = [ls[3] as string, ls[2] as string];
      return join_(ls);
    },
    "a line duplicated": () => {
      const ls = lines();
      return join_([...ls.slice(0, 3), ls[2] as string, ...ls.slice(3)]);
    },
    "the last newline cut": () => text.slice(0, -1),
    "a signature stripped": () => {
      const ls = lines();
      ls[5] = (ls[5] as string).replace(/,"sig":"[0-9a-f]+"/, "");
      return join_(ls);
    },
  };
  for (const [what, make] of Object.entries(tampers)) {
    it(`${what}: both fail, naming the same lines and reasons`, async () => {
      const copy = join(box.dir, "tampered.jsonl");
      const tampered = make();
      expect(tampered).not.toBe(text);
      writeFileSync(copy, tampered);
      const { ours, theirs } = await both(copy, PUBLIC_KEY);
      expect(ours.code, ours.stdout).toBe(1);
      expect(theirs.code, theirs.out).toBe(1);
      expect(breaksOf(theirs.out).length).toBeGreaterThan(0);
      expect(breaksOf(theirs.out)).toEqual(breaksOf(ours.stderr));
    });
  }
});
