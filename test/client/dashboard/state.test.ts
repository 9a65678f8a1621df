/**
 * The dashboard's transitions and key map (pure): a key acts only when the key bar shows it,
 * the disconnect question defaults to No, an action under way blocks the others, the selection
 * wraps and survives a snapshot with fewer providers.
 */
import { describe, expect, it } from "vitest";
import {
  availableKeys,
  commandForKey,
  type DashboardState,
  INITIAL_STATE,
  reduce,
} from "../../../src/client/dashboard/state.js";
import { freshSnapshot, snapshot } from "./snapshots.js";

const ready = (over: Partial<DashboardState> = {}): DashboardState =>
  reduce({ ...INITIAL_STATE, ...over }, { type: "snapshot", snapshot: snapshot() });

describe("the key map", () => {
  it("acts on exactly the keys the bar shows", () => {
    const state = ready();
    expect(availableKeys(state).map((k) => k.key)).toEqual(["↑↓", "⏎/s", "S", "d", "r", "?", "q"]);
    expect(commandForKey(state, { input: "s" })).toEqual({
      kind: "run",
      action: { kind: "sync", provider: "claude" },
    });
    const codex = reduce(state, { type: "move", by: 1 });
    expect(commandForKey(codex, { input: "s" })).toBeNull();
    expect(commandForKey(codex, { input: "d" })).toBeNull();
    expect(commandForKey(codex, { input: "", return: true })).toEqual({
      kind: "run",
      action: { kind: "connect", provider: "codex" },
    });
    const fresh = reduce(INITIAL_STATE, { type: "snapshot", snapshot: freshSnapshot() });
    expect(commandForKey(fresh, { input: "S" })).toBeNull();
  });

  it("answers nothing but quit and help while an action runs", () => {
    const busy = reduce(ready(), { type: "started", action: { kind: "sync-all" } });
    expect(availableKeys(busy).map((k) => k.key)).toEqual(["?", "q"]);
    for (const input of ["s", "S", "d", "r"]) expect(commandForKey(busy, { input })).toBeNull();
    expect(commandForKey(busy, { input: "", return: true })).toBeNull();
    expect(commandForKey(busy, { input: "q" })).toEqual({ kind: "quit" });
  });

  it("disconnects only on y; every other key keeps the provider", () => {
    const asking = reduce(ready(), { type: "confirm", provider: "claude" });
    expect(commandForKey(asking, { input: "y" })).toEqual({
      kind: "run",
      action: { kind: "disconnect", provider: "claude" },
    });
    for (const key of [{ input: "n" }, { input: "", return: true }, { input: "Y" }, { input: "d" }])
      expect(commandForKey(asking, key)).toEqual({ kind: "event", event: { type: "cancel" } });
    expect(reduce(asking, { type: "cancel" }).confirm).toBeUndefined();
  });
});

describe("reduce", () => {
  it("wraps the selection and keeps it within a smaller provider list", () => {
    const state = ready();
    expect(reduce(state, { type: "move", by: -1 }).selected).toBe(4);
    const last = { ...state, selected: 4 };
    const shorter = snapshot();
    shorter.providers = shorter.providers.slice(0, 2);
    expect(reduce(last, { type: "snapshot", snapshot: shorter }).selected).toBe(1);
  });

  it("ends an action with its outcome and drops a stale error once a snapshot arrives", () => {
    const running = reduce(ready(), { type: "started", action: { kind: "sync-all" } });
    const done = reduce(running, { type: "finished", text: "synced", ok: true });
    expect(done.running).toBeUndefined();
    expect(done.message).toEqual({ text: "synced", ok: true });
    const failed = reduce(done, { type: "snapshot-failed", error: "bad yaml" });
    expect(failed.snapshotError).toBe("bad yaml");
    expect(
      reduce(failed, { type: "snapshot", snapshot: snapshot() }).snapshotError,
    ).toBeUndefined();
  });
});
