/**
 * The dashboard's state and its transitions (pure): the last status snapshot, the live tail, the
 * selected provider, the action running, the disconnect confirmation and the help overlay. Which
 * actions a key may start is decided here, from the same facts the key bar shows, so a key that
 * is not shown does nothing.
 */
import type { ProviderId } from "../config.js";
import type { ProviderFacts, StatusSnapshot } from "../lib/status-snapshot.js";

/** One line of the live tail: a concept changed in one of the bound KBs. */
export interface ChangeRow {
  kb: string;
  id: string;
  change: string;
  /** ISO time of the last change. */
  time: string;
  subject: string;
}

/** What the person asked for; each maps to one command function (controller.ts). */
export type DashboardAction =
  | { kind: "connect"; provider: ProviderId }
  | { kind: "sync"; provider: ProviderId }
  | { kind: "sync-all" }
  | { kind: "disconnect"; provider: ProviderId };

export interface DashboardState {
  snapshot?: StatusSnapshot;
  /** Why the last snapshot could not be gathered (the yaml is unreadable, …). */
  snapshotError?: string;
  loading: boolean;
  changes: ChangeRow[];
  changesError?: string;
  selected: number;
  /** The action running now; keys that start another wait for it. */
  running?: DashboardAction;
  /** The last action's outcome, or a hint, for the status line. */
  message?: { text: string; ok: boolean };
  /** A disconnect waiting for y/N. */
  confirm?: ProviderId;
  help: boolean;
}

export const INITIAL_STATE: DashboardState = {
  loading: true,
  changes: [],
  selected: 0,
  help: false,
};

export type DashboardEvent =
  | { type: "loading" }
  | { type: "snapshot"; snapshot: StatusSnapshot }
  | { type: "snapshot-failed"; error: string }
  | { type: "changes"; changes: ChangeRow[] }
  | { type: "changes-failed"; error: string }
  | { type: "move"; by: number }
  | { type: "started"; action: DashboardAction }
  | { type: "finished"; text: string; ok: boolean }
  | { type: "confirm"; provider: ProviderId }
  | { type: "cancel" }
  | { type: "help" };

export function reduce(state: DashboardState, event: DashboardEvent): DashboardState {
  switch (event.type) {
    case "loading":
      return { ...state, loading: true };
    case "snapshot": {
      const count = event.snapshot.providers.length;
      const selected = Math.min(state.selected, Math.max(0, count - 1));
      const { snapshotError: _, ...rest } = state;
      return { ...rest, snapshot: event.snapshot, loading: false, selected };
    }
    case "snapshot-failed":
      return { ...state, loading: false, snapshotError: event.error };
    case "changes": {
      const { changesError: _, ...rest } = state;
      return { ...rest, changes: event.changes };
    }
    case "changes-failed":
      return { ...state, changesError: event.error };
    case "move": {
      const count = state.snapshot?.providers.length ?? 0;
      if (count === 0) return state;
      return { ...state, selected: (state.selected + event.by + count) % count };
    }
    case "started": {
      const { confirm: _, message: __, ...rest } = state;
      return { ...rest, running: event.action };
    }
    case "finished": {
      const { running: _, ...rest } = state;
      return { ...rest, message: { text: event.text, ok: event.ok } };
    }
    case "confirm":
      return { ...state, confirm: event.provider };
    case "cancel": {
      const { confirm: _, ...rest } = state;
      return { ...rest, help: false };
    }
    case "help":
      return { ...state, help: !state.help };
  }
}

export function selectedProvider(state: DashboardState): ProviderFacts | undefined {
  return state.snapshot?.providers[state.selected];
}

/** A key the key bar shows, and what it does. */
export interface KeyHint {
  key: string;
  label: string;
}

/**
 * The keys that do something now, in the key bar's order. Nothing but quit and help while an
 * action runs; y/n while a disconnect waits; connect needs a yaml-less or reachable server.
 */
export function availableKeys(state: DashboardState): KeyHint[] {
  if (state.confirm)
    return [
      { key: "y", label: "disconnect" },
      { key: "n", label: "keep" },
      { key: "q", label: "quit" },
    ];
  const keys: KeyHint[] = [];
  const snapshot = state.snapshot;
  if (!state.running && snapshot) {
    const selected = selectedProvider(state);
    if (snapshot.providers.length > 1) keys.push({ key: "↑↓", label: "select" });
    const reachable = snapshot.server.reachable;
    if (selected && !selected.connected && reachable) keys.push({ key: "⏎", label: "connect" });
    if (selected?.connected && reachable) {
      keys.push({ key: "⏎/s", label: "sync" });
    }
    if (reachable && snapshot.providers.some((p) => p.connected))
      keys.push({ key: "S", label: "sync all" });
    if (selected?.connected) keys.push({ key: "d", label: "disconnect" });
  }
  if (!state.running) keys.push({ key: "r", label: "refresh" });
  keys.push({ key: "?", label: state.help ? "close help" : "help" }, { key: "q", label: "quit" });
  return keys;
}

/** What a key press does; null = nothing (an action that is not shown is not run). */
export type KeyCommand =
  | { kind: "run"; action: DashboardAction }
  | { kind: "event"; event: DashboardEvent }
  | { kind: "refresh" }
  | { kind: "quit" };

export interface KeyPress {
  input: string;
  upArrow?: boolean;
  downArrow?: boolean;
  return?: boolean;
  escape?: boolean;
  ctrl?: boolean;
}

export function commandForKey(state: DashboardState, key: KeyPress): KeyCommand | null {
  if (key.input === "q" || (key.ctrl && key.input === "c")) return { kind: "quit" };
  const shown = new Set(availableKeys(state).map((k) => k.key));
  if (state.confirm) {
    if (key.input === "y")
      return { kind: "run", action: { kind: "disconnect", provider: state.confirm } };
    // Anything else keeps the provider connected (the default is No).
    return { kind: "event", event: { type: "cancel" } };
  }
  if (key.input === "?") return { kind: "event", event: { type: "help" } };
  if (key.escape && state.help) return { kind: "event", event: { type: "cancel" } };
  const selected = selectedProvider(state);
  if ((key.upArrow || key.input === "k") && shown.has("↑↓"))
    return { kind: "event", event: { type: "move", by: -1 } };
  if ((key.downArrow || key.input === "j") && shown.has("↑↓"))
    return { kind: "event", event: { type: "move", by: 1 } };
  if (key.input === "r" && shown.has("r")) return { kind: "refresh" };
  if (!selected) return null;
  if (key.return && shown.has("⏎"))
    return { kind: "run", action: { kind: "connect", provider: selected.id } };
  if ((key.return || key.input === "s") && shown.has("⏎/s"))
    return { kind: "run", action: { kind: "sync", provider: selected.id } };
  if (key.input === "S" && shown.has("S")) return { kind: "run", action: { kind: "sync-all" } };
  if (key.input === "d" && shown.has("d"))
    return { kind: "event", event: { type: "confirm", provider: selected.id } };
  return null;
}

/** The status line's words for an action under way. */
export function runningText(action: DashboardAction): string {
  switch (action.kind) {
    case "connect":
      return `connecting ${action.provider}…`;
    case "sync":
      return `syncing ${action.provider}…`;
    case "sync-all":
      return "syncing every connected provider…";
    case "disconnect":
      return `disconnecting ${action.provider}…`;
  }
}
