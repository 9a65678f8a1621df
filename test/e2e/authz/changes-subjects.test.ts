/**
 * changes_since never leaks a hidden id, title or count through a commit subject (docs/decisions.md
 * "`changes_since` rebuilds commit subjects per principal"). Writes go through the real call
 * pipeline (so subjects are the real ones, e.g. `concept_move: beta/secret-plan, alpha/plan`,
 * `concept_batch: …`); a type-restricted principal then reads the history.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../../src/auth/types.js";
import { silentLogger } from "../../../src/logger.js";
import { LOCAL_ADMIN } from "../../../src/mcp/context.js";
import type { KbSurface } from "../../../src/mcp/kb-surface.js";
import { surfaceForMount } from "../../../src/mcp/surface-for-mount.js";
import type { MountedKb } from "../../../src/runtime/mount.js";
import { outcome, seedMain } from "../../support/authz.js";
import { principal, type TempMounts, tempMounts } from "../../support/mcp-kit.js";

/** Read on map alpha, type note only. */
const TYPED = principal("typed", [{ kb: "main", access: "r", maps: ["alpha"], types: ["note"] }]);
const HIDDEN = ["beta/", "secret", "in-task", "2 more", "Secret Title"];

let kbs: TempMounts;
let surface: KbSurface;

async function call(who: Principal, name: string, args: Record<string, unknown>) {
  const res = outcome(
    await surface.callTool(name, args, { principal: who, transport: "in-memory", requestId: "" }),
  );
  expect(res.isError, res.text).toBe(false);
  return res.text;
}
const admin = (name: string, args: Record<string, unknown>) => call(LOCAL_ADMIN, name, args);
const note = (id: string, type = "note") => ({
  op: "write",
  id,
  frontmatter: { type, title: `${id} Secret Title` },
  body: "x\n",
});

beforeAll(async () => {
  kbs = await tempMounts(["main"]);
  const main = kbs.byName.main as MountedKb;
  await seedMain(main);
  surface = surfaceForMount(main, { logger: silentLogger });
  // A hidden concept moved into the visible map: the record is visible, its past is not.
  await admin("concept_write", {
    id: "beta/secret-plan",
    frontmatter: { type: "note", title: "Secret Title" },
    body: "x\n",
  });
  await admin("concept_move", { from: "beta/secret-plan", to: "alpha/plan", rewrite_links: false });
  // One batch over a visible concept, a hidden one (other map) and a typed-hidden one.
  await admin("concept_batch", {
    operations: [
      note("alpha/public-hello"),
      note("beta/secret-x"),
      note("alpha/in-task-2", "task"),
    ],
  });
  await admin("concept_batch", {
    operations: [note("alpha/public-two"), note("alpha/public-three")],
  });
}, 30_000);
afterAll(async () => kbs?.cleanup());

describe("changes_since subjects per principal", () => {
  it("a typed principal sees no hidden id, title or count in any subject", async () => {
    const text = await call(TYPED, "changes_since", { since: "2000-01-01T00:00:00Z" });
    for (const word of HIDDEN) expect(text, `${word} in ${text}`).not.toContain(word);
    const changes = (
      JSON.parse(text) as { changes: Array<{ id: string; subjects: string[]; from?: string }> }
    ).changes;
    const byId = Object.fromEntries(changes.map((c) => [c.id, c]));
    expect(byId["alpha/plan"]?.from).toBeUndefined();
    expect(byId["alpha/plan"]?.subjects).toEqual(["concept_move: alpha/plan"]);
    expect(byId["alpha/public-hello"]?.subjects).toEqual(["concept_batch: alpha/public-hello"]);
    // A commit touching only visible concepts keeps its subject as written.
    const admins = JSON.parse(await admin("changes_since", { since: "2000-01-01T00:00:00Z" })) as {
      changes: Array<{ id: string; subjects: string[] }>;
    };
    const adminById = Object.fromEntries(admins.changes.map((c) => [c.id, c]));
    expect(byId["alpha/public-two"]?.subjects).toEqual(adminById["alpha/public-two"]?.subjects);
  });

  it("admin sees the subjects as committed (the assertions above can fail)", async () => {
    const text = await admin("changes_since", { since: "2000-01-01T00:00:00Z" });
    expect(text).toContain("beta/secret-plan");
    expect(text).toMatch(/concept_batch: [^"]*beta\/secret-x|concept_batch: [^"]*more/);
  });
});
