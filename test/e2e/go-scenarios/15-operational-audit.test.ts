/**
 * Go scenario 15_operational_audit: a server from a yaml with `audit.log` and `audit.mode:
 * best_effort`; a read (atlas_overview) and a write (map_create {name, title}) as plain JSON
 * POSTs. After the server stops, the log holds attempt + completion pairs naming the tool, the KB
 * and the transport; `audit verify` exits 0 ("chain verified"), `audit export --out` writes the
 * events; one outcome rewritten in place (still valid JSON) makes verify fail and export refuse,
 * writing nothing.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, runBin, tempDir } from "../helpers.js";
import { plainCall } from "./plain-mcp.js";
import { startScenarioServer, stopScenario } from "./scenario-server.js";

const KB = "15_operational_audit-kb";
const sandbox = tempDir("carto-go15-");
const log = join(sandbox.dir, "audit.jsonl");
let server: RunningServer | undefined;

beforeAll(async () => {
  const kb = join(sandbox.dir, KB);
  mkdirSync(kb);
  const config = join(sandbox.dir, "config.yaml");
  writeFileSync(
    config,
    `http: "127.0.0.1:0"\ninit: true\nkbs:\n  - path: ${kb}\n    name: ${KB}\naudit:\n  log: ${log}\n  mode: best_effort\n`,
  );
  server = await startScenarioServer(sandbox, ["--config", config]);
}, 60_000);
afterAll(() => stopScenario(server, sandbox));

const cli = (args: string[]) => runBin(["audit", ...args], { cwd: sandbox.dir });

describe("Go scenario 15: compliance audit from the CLI", () => {
  it("records attempt/completion pairs naming tool, KB and transport", async () => {
    const endpoint = `${server?.url}/mcp?kb=${KB}`;
    expect((await plainCall(endpoint, "atlas_overview", {})).isError).toBeFalsy();
    expect(
      (await plainCall(endpoint, "map_create", { name: "audited", title: "Audited" })).isError,
    ).toBeFalsy();
    await server?.stop();
    server = undefined;
    const text = readFileSync(log, "utf8");
    for (const needle of [
      '"phase":"attempt"',
      '"phase":"completion"',
      "map_create",
      "atlas_overview",
      KB,
      '"transport":"http"',
      '"outcome":"success"',
    ])
      expect(text, needle).toContain(needle);
  }, 60_000);

  it("verify exits 0 and export writes the events of an intact log", async () => {
    const verify = await cli(["verify", "--log", log]);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toContain("chain verified");
    const out = join(sandbox.dir, "export.json");
    const exported = await cli(["export", "--log", log, "--out", out]);
    expect(exported.code, exported.stderr).toBe(0);
    const doc = readFileSync(out, "utf8");
    expect(doc).toContain('"events"');
    expect(doc).toContain("map_create");
  }, 60_000);

  it("a rewritten outcome fails verify and export, which writes nothing", async () => {
    const text = readFileSync(log, "utf8");
    expect(text).toContain('"outcome":"success"');
    writeFileSync(log, text.replaceAll('"outcome":"success"', '"outcome":"failure"'));
    const verify = await cli(["verify", "--log", log]);
    expect(verify.code).not.toBe(0);
    const out = join(sandbox.dir, "export-tampered.json");
    const exported = await cli(["export", "--log", log, "--out", out]);
    expect(exported.code).not.toBe(0);
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});
