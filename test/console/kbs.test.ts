/**
 * ConsoleKbs: the console's one way to a KB goes through the real call pipeline as the viewer —
 * audited with transport `console` — and hides what the viewer may not read.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../src/auth/types.js";
import { ConsoleKbs } from "../../src/console/kbs.js";
import type { Viewer } from "../../src/console/types.js";
import { silentLogger } from "../../src/logger.js";
import { type Cartographer, createCartographer } from "../../src/mcp/app.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import { MemoryAudit, principal, type TempMounts, tempMounts } from "../support/mcp-kit.js";

let kbs: TempMounts;
let app: Cartographer;
const audit = new MemoryAudit();
let console_: ConsoleKbs;

const viewerOf = (p: Principal): Viewer => ({
  principal: p,
  label: p.id,
  signedIn: true,
  isAdmin: () => false,
  csrf: "",
  kbs: [],
});

beforeAll(async () => {
  kbs = await tempMounts(["a", "b"]);
  app = await createCartographer({ mounts: kbs.mounts, logger: silentLogger, audit });
  console_ = new ConsoleKbs(app);
});
afterAll(async () => {
  await app.close();
  await kbs.cleanup();
});

describe("ConsoleKbs", () => {
  it("a call runs the real pipeline, audited as the viewer with transport console", async () => {
    const r = await console_.call(viewerOf(LOCAL_ADMIN), "a", "atlas_overview");
    expect(r.ok).toBe(true);
    const records = audit.records.filter((x) => x.tool === "atlas_overview" && x.kb === "a");
    expect(records.length).toBeGreaterThan(0);
    expect(
      records.every((x) => x.transport === "console" && x.principal_id === "local-admin"),
    ).toBe(true);
  });

  it("a KB the viewer cannot read is missing: not listed, not_found before any call, no runtime", async () => {
    const reader = viewerOf(principal("reader-b", [{ kb: "b", access: "r" }]));
    expect(console_.visible(reader)).toEqual(["b"]);
    const before = audit.records.length;
    const r = await console_.call(reader, "a", "atlas_overview");
    expect(r).toEqual({ ok: false, code: "not_found", message: "not found" });
    expect(await console_.call(reader, "nope", "atlas_overview")).toEqual(r);
    expect(audit.records.length).toBe(before);
    expect(console_.runtime(reader, "a")).toBeNull();
    expect(console_.runtime(reader, "b")?.visibility).toEqual({ all: true });
  });

  it("a tool's refusal comes back as its code", async () => {
    const reader = viewerOf(principal("narrow", [{ kb: "a", access: "r", maps: ["m"] }]));
    const lint = await console_.call(reader, "a", "lint");
    expect(lint).toMatchObject({ ok: false, code: "forbidden" });
    const missing = await console_.call(viewerOf(LOCAL_ADMIN), "a", "concept_read", { id: "x/y" });
    expect(missing).toMatchObject({ ok: false, code: "not_found" });
  });
});
