/**
 * The dashboard component with ink-testing-library: keys reach exactly the action the key bar
 * offers (connect, sync one, sync all, disconnect after y), a key whose action is not shown runs
 * nothing, `r` gathers a new snapshot, and an action's outcome lands in the status line.
 */
import { render } from "ink-testing-library";
import { createElement as h } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { DashboardApp } from "../../../src/client/dashboard/app.js";
import type { DashboardDeps } from "../../../src/client/dashboard/controller.js";
import { palette } from "../../../src/client/dashboard/layout.js";
import type { DashboardAction } from "../../../src/client/dashboard/state.js";
import type { StatusSnapshot } from "../../../src/client/lib/status-snapshot.js";
import { freshSnapshot, HOME, snapshot } from "./snapshots.js";

const ENTER = "\r";
const DOWN = "\u001B[B";
const ESC = "\u001B";

interface Recorder {
  deps: DashboardDeps;
  actions: DashboardAction[];
  snapshots: () => number;
}

function recorder(current: () => StatusSnapshot): Recorder {
  const actions: DashboardAction[] = [];
  let gathered = 0;
  return {
    actions,
    snapshots: () => gathered,
    deps: {
      snapshot: async () => {
        gathered += 1;
        return current();
      },
      changes: async () => [],
      run: async (action) => {
        actions.push(action);
        return { text: `done ${action.kind}`, ok: true };
      },
    },
  };
}

const mounted: Array<() => void> = [];
afterEach(() => {
  for (const unmount of mounted.splice(0)) unmount();
});

function mount(rec: Recorder) {
  const app = render(
    h(DashboardApp, {
      deps: rec.deps,
      columns: 100,
      paint: palette(false),
      home: HOME,
      client: "1.2.3",
      refreshMs: 60_000,
      tailMs: 60_000,
    }),
  );
  mounted.push(app.unmount);
  return app;
}

/** Polls until `check` holds (Ink renders and effects run asynchronously), 5 s at most. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const frameOf = (app: ReturnType<typeof mount>) => app.lastFrame() ?? "";

describe("dashboard keys", () => {
  it("Enter on a disconnected provider connects it; s, Enter and S sync a connected one", async () => {
    let snap = freshSnapshot();
    const rec = recorder(() => snap);
    const app = mount(rec);
    await until(() => frameOf(app).includes("⏎ connect"), "the first snapshot");
    app.stdin.write(ENTER);
    await until(() => rec.actions.length === 1, "connect");
    expect(rec.actions[0]).toEqual({ kind: "connect", provider: "claude" });
    await until(() => frameOf(app).includes("done connect"), "the outcome");

    snap = snapshot();
    app.stdin.write("r");
    await until(() => frameOf(app).includes("⏎/s sync"), "the new snapshot");
    app.stdin.write("s");
    await until(() => rec.actions.length === 2, "sync");
    await until(() => frameOf(app).includes("done sync"), "the sync outcome");
    app.stdin.write(ENTER);
    await until(() => rec.actions.length === 3, "sync by Enter");
    await until(() => !frameOf(app).includes("syncing"), "the end of the sync");
    app.stdin.write("S");
    await until(() => rec.actions.length === 4, "sync all");
    expect(rec.actions.slice(1)).toEqual([
      { kind: "sync", provider: "claude" },
      { kind: "sync", provider: "claude" },
      { kind: "sync-all" },
    ]);
  });

  it("keys whose action is not shown run nothing", async () => {
    const rec = recorder(freshSnapshot);
    const app = mount(rec);
    await until(() => frameOf(app).includes("⏎ connect"), "the first snapshot");
    for (const key of ["s", "S", "d", "x"]) app.stdin.write(key);
    await new Promise((r) => setTimeout(r, 100));
    expect(rec.actions).toEqual([]);
    expect(frameOf(app)).not.toContain("Disconnect");
  });

  it("d asks first: n (or any other key) keeps the provider, y disconnects it", async () => {
    const rec = recorder(snapshot);
    const app = mount(rec);
    await until(() => frameOf(app).includes("d disconnect"), "the first snapshot");
    app.stdin.write("d");
    await until(() => frameOf(app).includes("Disconnect claude?"), "the question");
    app.stdin.write("n");
    await until(() => !frameOf(app).includes("Disconnect claude?"), "the question to close");
    app.stdin.write("d");
    await until(() => frameOf(app).includes("y/N"), "the question again");
    app.stdin.write(ENTER);
    await until(() => !frameOf(app).includes("y/N"), "Enter to mean No");
    expect(rec.actions).toEqual([]);
    app.stdin.write("d");
    await until(() => frameOf(app).includes("y/N"), "the question a third time");
    app.stdin.write("y");
    await until(() => rec.actions.length === 1, "disconnect");
    expect(rec.actions[0]).toEqual({ kind: "disconnect", provider: "claude" });
  });

  it("moves the selection with the arrows; r and ? refresh and show help", async () => {
    const rec = recorder(snapshot);
    const app = mount(rec);
    await until(() => frameOf(app).includes("d disconnect"), "the first snapshot");
    app.stdin.write(DOWN);
    await until(() => frameOf(app).includes("› codex"), "codex selected");
    expect(frameOf(app)).toContain("⏎ connect");
    app.stdin.write(ENTER);
    await until(() => rec.actions.length === 1, "connect codex");
    expect(rec.actions[0]).toEqual({ kind: "connect", provider: "codex" });
    await until(() => rec.snapshots() >= 2, "the refresh after the action");
    const before = rec.snapshots();
    app.stdin.write("r");
    await until(() => rec.snapshots() > before, "r to gather again");
    app.stdin.write("?");
    await until(() => frameOf(app).includes("select a provider"), "help");
    app.stdin.write(ESC);
    await until(() => !frameOf(app).includes("select a provider"), "help closed");
  });

  it("shows why a snapshot could not be gathered, and a failed action's words", async () => {
    const rec = recorder(snapshot);
    rec.deps.snapshot = async () => {
      throw new Error("/home/ada/.cartographer.yaml: providers must be a list");
    };
    const app = mount(rec);
    await until(() => frameOf(app).includes("providers must be a list"), "the error");

    const failing = recorder(snapshot);
    failing.deps.run = async () => ({
      text: "sync claude failed (exit 2): server unreachable",
      ok: false,
    });
    const other = mount(failing);
    await until(() => frameOf(other).includes("d disconnect"), "the first snapshot");
    other.stdin.write("s");
    await until(() => frameOf(other).includes("sync claude failed (exit 2)"), "the failure");
  });
});
