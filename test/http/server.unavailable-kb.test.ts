/**
 * One bad KB never stops the server (docs/decisions.md "A KB that cannot open is `unavailable`"). A
 * KB whose data/ is a symlink outside the KB and one without data/index.md sit among good KBs: the
 * server starts, /health reports each with a path-free reason, calls naming them answer a clear
 * error, the good KBs are served.
 */
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HeldLock } from "../../src/common/process-lock.js";
import { createHttpCore } from "../../src/http/core.js";
import { requestOf } from "../../src/http/exchange.js";
import { acquireKbLock } from "../../src/kb/locks/kb-lock.js";
import { memoryLogger } from "../../src/logger.js";
import { type Cartographer, createCartographer } from "../../src/mcp/app.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import { stdioSurfaceOf } from "../../src/mcp/stdio.js";
import { seedKb, testKbSettings } from "../support/kb.js";
import { textOf } from "../support/mcp-kit.js";
import { useTempDirs } from "../support/temp-dir.js";
import { INITIALIZE, MCP_HEADERS } from "./helpers.js";

// Registered first: its hook runs after the one below (app closed, lock released).
const newDir = useTempDirs("carto-unavailable-", "file");
let tmp: string;
let app: Cartographer;
let held: HeldLock;
const NAMES = ["good", "linked", "empty", "held", "also-good"];
const logger = memoryLogger();

beforeAll(async () => {
  tmp = newDir();
  for (const name of NAMES) await seedKb(join(tmp, name));
  // linked: data/ is a symlink to a folder outside the KB (which looks like a KB's data/).
  await mkdir(join(tmp, "elsewhere"));
  await writeFile(join(tmp, "elsewhere", "index.md"), "---\ntype: Index\n---\nsecret\n");
  await rm(join(tmp, "linked", "data"), { recursive: true });
  await symlink(join(tmp, "elsewhere"), join(tmp, "linked", "data"));
  // empty: no data/index.md.
  await rm(join(tmp, "empty", "data", "index.md"));
  const settings = (name: string) => testKbSettings(join(tmp, name), { name });
  // held: another server (here: this test) holds the KB's cross-process lock.
  held = await acquireKbLock(settings("held"), "serve", logger);
  app = await createCartographer({ kbs: NAMES.map(settings), logger });
});
afterAll(async () => {
  await app.close();
  await held.release();
});

const core = () => createHttpCore({ app, version: "1" });
const H = { ...MCP_HEADERS, Host: "127.0.0.1", "mcp-protocol-version": "2025-06-18" };
const call = (kb: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "kb_status", arguments: { kb } },
  });

describe("a KB that cannot open", () => {
  it("is logged with its cause while the others are mounted", () => {
    expect([...app.surfaces.keys()]).toEqual(["good", "also-good"]);
    const errors = logger.lines.filter((l) => l.startsWith("error:"));
    expect(errors).toHaveLength(3);
    expect(errors[0]).toContain("KB 'linked'");
    expect(errors[1]).toContain("KB 'empty'");
    expect(errors[2]).toContain("KB 'held'");
  });

  it("/health lists every KB with status ok/unavailable and a reason free of absolute paths", async () => {
    const reply = await core().handle(requestOf("GET", "/health", { Host: "127.0.0.1" }));
    expect(reply?.status).toBe(200);
    const body = JSON.parse(reply?.body ?? "");
    expect(body.kbs.map((k: { name: string; status: string }) => [k.name, k.status])).toEqual([
      ["good", "ok"],
      ["linked", "unavailable"],
      ["empty", "unavailable"],
      ["held", "unavailable"],
      ["also-good", "ok"],
    ]);
    expect(body.kbs[1].reason).toMatch(/outside the KB root through a symlink/);
    expect(body.kbs[2].reason).toMatch(/data\/index\.md does not exist/);
    expect(body.kbs[3].reason).toMatch(/^locked: in use by another cartographer process/);
    // The holder's pid and host name stay in the server log: /health answers anyone.
    expect(body.kbs[3].reason).not.toContain(hostname());
    expect(body.kbs[3].reason).not.toMatch(/\bpid\b/);
    expect(logger.lines.join("\n")).toContain(`pid ${process.pid} on host ${hostname()}`);
    expect(reply?.body).not.toContain(tmp);
    expect(reply?.body).not.toMatch(/"\/(tmp|home|var|private)\//);
    expect(body.ready).toBe(true);
  });

  it("its per-KB endpoint and ?kb= answer 503 naming the KB and the reason", async () => {
    for (const target of ["/mcp/linked", "/mcp?kb=empty", "/mcp/routed?kbs=good,linked"]) {
      const reply = await core().handle(requestOf("POST", target, H, INITIALIZE));
      expect(reply?.status, target).toBe(503);
      const message = JSON.parse(reply?.body ?? "").error.message;
      expect(message).toMatch(/^KB "(linked|empty)" is unavailable: .+; the other KBs are served$/);
      expect(message).not.toContain(tmp);
    }
  });

  it("a routed call with kb=<that KB> is a clear tool error; the good KBs answer", async () => {
    const bad = await core().handle(requestOf("POST", "/mcp/routed", H, call("linked")));
    const badResult = JSON.parse(bad?.body ?? "").result;
    expect(badResult.isError).toBe(true);
    expect(textOf(badResult)).toMatch(/^unavailable: KB 'linked' could not be opened \(.+\)/);
    for (const kb of ["good", "also-good"]) {
      const ok = await core().handle(requestOf("POST", "/mcp/routed", H, call(kb)));
      expect(JSON.parse(ok?.body ?? "").result.isError).toBeUndefined();
    }
    const per = await core().handle(requestOf("POST", "/mcp/good", H, INITIALIZE));
    expect(per?.status).toBe(200);
  });

  it("stdio serves the good KBs and tells a call naming the bad one why", async () => {
    const surface = stdioSurfaceOf(app);
    expect(surface.kbNames).toEqual(["good", "also-good"]);
    const ctx = { principal: LOCAL_ADMIN, transport: "stdio" as const, requestId: "r" };
    const r = await surface.callTool("kb_status", { kb: "empty" }, ctx);
    expect(textOf(r)).toMatch(/^unavailable: KB 'empty' could not be opened/);
  });
});
