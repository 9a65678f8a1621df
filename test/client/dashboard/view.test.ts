/**
 * The screen drawn from a snapshot at the three layouts (60, 80, 120 columns): every panel and
 * badge is there, no line is wider than the terminal, the key bar shows only what can act now,
 * and without colour no colour escape is written.
 */
import { renderToString } from "ink";
import { createElement as h } from "react";
import { describe, expect, it } from "vitest";
import { palette } from "../../../src/client/dashboard/layout.js";
import { type DashboardState, INITIAL_STATE } from "../../../src/client/dashboard/state.js";
import { DashboardView } from "../../../src/client/dashboard/view.js";
import { freshSnapshot, HOME, snapshot } from "./snapshots.js";

function draw(state: Partial<DashboardState>, columns: number, colour = false): string {
  const view = h(DashboardView, {
    state: { ...INITIAL_STATE, loading: false, ...state },
    columns,
    paint: palette(colour),
    home: HOME,
    client: "1.2.3",
  });
  return renderToString(view, { columns });
}

/** The key bar: the frame's last line (wide enough not to wrap in these tests). */
const keyBar = (frame: string) => frame.trimEnd().split("\n").at(-1) ?? "";

const CHANGES = [
  {
    kb: "notes",
    id: "ops/deploy",
    change: "modified",
    time: "2026-12-07T15:04:05Z",
    subject: "concept_write: ops/deploy",
  },
];

describe("the dashboard view", () => {
  for (const columns of [60, 80, 120]) {
    it(`draws the server, providers and changes panels within ${columns} columns`, () => {
      const frame = draw({ snapshot: snapshot(), changes: CHANGES }, columns);
      for (const text of ["Server", "Providers", "Recent changes", "http://127.0.0.1:39273"])
        expect(frame).toContain(text);
      expect(frame).toContain("server 9.9.9 · client 1.2.3");
      expect(frame).toMatch(/notes ok · index ready 3\/3/);
      expect(frame).toMatch(/wiki degraded · index building 1\/9/);
      expect(frame).toMatch(/sync stopped: diverged · 2 conflicts/);
      expect(frame).toContain("2 conflicts");
      expect(frame).toMatch(/claude\s+connected/);
      if (columns >= 80) expect(frame).toContain("detected · ~/.claude.json");
      expect(frame).toContain("mcp-config partial");
      expect(frame).toContain("artifacts drift skill 1");
      expect(frame).toContain("held unsigned 1");
      expect(frame).toMatch(/codex\s+disconnected · detected/);
      expect(frame).toMatch(/kiro\s+disconnected · not detected/);
      expect(frame).toContain("12-07 15:04");
      expect(frame).toContain("notes/ops/deploy");
      expect(frame).toContain("token $CARTO_TOKEN");
      for (const row of frame.split("\n")) expect([...row].length).toBeLessThanOrEqual(columns);
    });
  }

  it("puts providers and changes side by side at 120 columns, stacked below", () => {
    const wide = draw({ snapshot: snapshot(), changes: CHANGES }, 120);
    expect(
      wide.split("\n").some((l) => l.includes("Providers") && l.includes("Recent changes")),
    ).toBe(true);
    const medium = draw({ snapshot: snapshot(), changes: CHANGES }, 80);
    expect(
      medium.split("\n").some((l) => l.includes("Providers") && l.includes("Recent changes")),
    ).toBe(false);
    // The change's subject is left out at 60 columns, shown from 80.
    expect(medium).toContain("concept_write: ops/deploy");
    expect(draw({ snapshot: snapshot(), changes: CHANGES }, 60)).not.toContain("concept_write:");
  });

  it("shows sync, sync all and disconnect for a connected provider, connect for another", () => {
    const connected = draw({ snapshot: snapshot(), selected: 0 }, 120);
    expect(connected).toMatch(
      /⏎\/s sync · S sync all · d disconnect · r refresh · \? help · q quit/,
    );
    expect(connected).not.toContain("⏎ connect");
    const other = draw({ snapshot: snapshot(), selected: 1 }, 120);
    expect(other).toMatch(/⏎ connect · S sync all · r refresh/);
    expect(other).not.toContain("d disconnect");
  });

  it("hides every action that cannot run: no connected provider, an unreachable server, a running action", () => {
    const fresh = draw({ snapshot: freshSnapshot() }, 80);
    expect(fresh).toContain("⏎ connect");
    expect(keyBar(fresh)).not.toMatch(/sync|disconnect/);
    expect(fresh).toContain("(none yet)");
    expect(fresh).toContain("no KB bound yet");

    const down = snapshot({
      server: {
        url: "http://127.0.0.1:1",
        reachable: false,
        error: new Error("server unreachable at http://127.0.0.1:1/health (ECONNREFUSED)") as never,
      },
    });
    const unreachable = draw({ snapshot: down, selected: 0 }, 80);
    expect(unreachable).toContain("unreachable");
    expect(unreachable).toContain("ECONNREFUSED");
    expect(keyBar(unreachable)).not.toMatch(/⏎|sync/);
    expect(unreachable).toContain("d disconnect");

    const busy = draw({ snapshot: snapshot(), running: { kind: "sync-all" } }, 80);
    expect(busy).toContain("syncing every connected provider…");
    expect(busy).toMatch(/\? help · q quit/);
    expect(busy).not.toMatch(/r refresh|S sync all|d disconnect/);
  });

  it("asks y/N before a disconnect, and offers only y and n", () => {
    const frame = draw({ snapshot: snapshot(), confirm: "claude" }, 80);
    expect(frame).toContain("Disconnect claude?");
    expect(frame).toContain("y/N");
    expect(keyBar(frame)).toBe("y disconnect · n keep · q quit");
  });

  it("shows the help overlay with every key", () => {
    const frame = draw({ snapshot: snapshot(), help: true }, 80);
    for (const key of ["Enter", "sync every connected provider", "disconnect the selected", "quit"])
      expect(frame).toContain(key);
    expect(frame).toContain("? close help");
  });

  it("gives Ink colours only when colour is on (NO_COLOR: none; the e2e test reads the terminal)", () => {
    expect(palette(true)("bad")).toEqual({ color: "red" });
    expect(palette(false)("bad")).toEqual({});
  });
});
