/**
 * Connect's sections (src/client/provision/targets/connection-sections.ts) planned by the engine
 * (pure): they converge — a hand edit is updated, not kept as the user's; an entry written
 * before the lockfile recorded it is still removed; the user's keys of the entry stay.
 */
import { describe, expect, it } from "vitest";
import { planProvision, sectionKey } from "../../../../src/client/provision/plan.js";
import { connectionRender } from "../../../../src/client/provision/targets/connection-sections.js";
import { PROVIDERS } from "../../../../src/client/provision/targets/index.js";

const files = { config: "/h/.claude.json", instructions: "/h/.claude/CLAUDE.md" };
const entries = [{ name: "cartographer", url: "http://127.0.0.1:1/mcp/routed" }];
const spec = (on: boolean) => ({
  provider: PROVIDERS.claude,
  files,
  serverName: "cartographer",
  entries: on ? entries : [],
  auth: {},
  block: on
    ? "<!-- BEGIN cartographer:cartographer (claude): x -->\n<!-- END cartographer:cartographer (claude) -->"
    : null,
});

function plan(on: boolean, config: string | null, doc: string | null) {
  const render = connectionRender(spec(on));
  const texts: Record<string, string | null> = {
    [files.config]: config,
    [files.instructions]: doc,
  };
  const sections = new Map(
    render.sections.map((s) => [
      sectionKey(s.file, s.id),
      { state: "ok" as const, current: s.read(texts[s.file] ?? null) },
    ]),
  );
  return {
    render,
    plan: planProvision({ render, lock: undefined, disk: new Map(), sections, force: false }),
  };
}

describe("connect's sections", () => {
  it("are created on a fresh machine, unchanged once written, updated after a hand edit (never kept)", () => {
    const fresh = plan(true, null, null);
    expect(fresh.plan.sections.map((a) => a.kind)).toEqual(["create", "create"]);
    const [entry, block] = fresh.render.sections;
    const config = entry?.write(null, entry.desired) ?? "";
    const doc = block?.write(null, block.desired) ?? "";
    expect(plan(true, config, doc).plan.sections.map((a) => a.kind)).toEqual([
      "unchanged",
      "unchanged",
    ]);
    const edited = config.replace("127.0.0.1:1", "elsewhere");
    expect(plan(true, edited, doc).plan.sections.map((a) => a.kind)).toEqual([
      "update",
      "unchanged",
    ]);
  });

  it("keep the user's own keys of the entry, and remove ours without a lock record", () => {
    const withTimeout = JSON.stringify({
      mcpServers: { cartographer: { type: "http", url: entries[0]?.url, timeout: 5 } },
    });
    const [entry] = plan(true, withTimeout, null).render.sections;
    expect(
      JSON.parse(entry?.write(withTimeout, entry.desired) ?? "{}").mcpServers.cartographer.timeout,
    ).toBe(5);
    const off = plan(false, withTimeout, "mine\n");
    expect(off.plan.sections.map((a) => a.kind)).toEqual(["remove"]);
    expect(off.render.sections[0]?.write(withTimeout, null)).toBe('{\n  "mcpServers": {}\n}');
  });
});
