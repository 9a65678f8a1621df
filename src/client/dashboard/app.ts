/**
 * The dashboard component: holds the state (state.ts), refreshes the snapshot on an interval and
 * on `r`, polls the live tail, turns keys into commands and runs actions through the deps
 * (controller.ts). One refresh at a time; an action refreshes when it ends.
 */
import { useApp, useInput } from "ink";
import {
  createElement as h,
  type ReactElement,
  useCallback,
  useEffect,
  useReducer,
  useRef,
} from "react";
import type { DashboardDeps } from "./controller.js";
import type { Palette } from "./layout.js";
import { commandForKey, type DashboardAction, INITIAL_STATE, reduce } from "./state.js";
import { DashboardView } from "./view.js";

export interface DashboardAppProps {
  deps: DashboardDeps;
  columns: number;
  paint: Palette;
  home: string;
  client: string;
  /** Snapshot refresh period; default 15 s (a status asks the server several things). */
  refreshMs?: number;
  /** Live-tail period; default 5 s. */
  tailMs?: number;
}

const message = (err: unknown) => (err as Error)?.message ?? String(err);

export function DashboardApp(props: DashboardAppProps): ReactElement {
  const { deps } = props;
  const { exit } = useApp();
  const [state, dispatch] = useReducer(reduce, INITIAL_STATE);
  const stateRef = useRef(state);
  stateRef.current = state;
  const refreshing = useRef(false);
  const alive = useRef(true);

  // One gathering at a time; a request during one (an action just ended) runs once more after it,
  // so the screen never settles on facts older than the last action.
  const again = useRef(false);
  const refresh = useCallback(async () => {
    if (refreshing.current) {
      again.current = true;
      return;
    }
    refreshing.current = true;
    try {
      do {
        again.current = false;
        dispatch({ type: "loading" });
        try {
          const snapshot = await deps.snapshot();
          if (alive.current) dispatch({ type: "snapshot", snapshot });
        } catch (err) {
          if (alive.current) dispatch({ type: "snapshot-failed", error: message(err) });
        }
      } while (again.current && alive.current);
    } finally {
      refreshing.current = false;
    }
  }, [deps]);

  const tail = useCallback(async () => {
    const snapshot = stateRef.current.snapshot;
    if (!snapshot) return;
    try {
      const changes = await deps.changes(snapshot);
      if (alive.current) dispatch({ type: "changes", changes });
    } catch (err) {
      if (alive.current) dispatch({ type: "changes-failed", error: message(err) });
    }
  }, [deps]);

  const run = useCallback(
    async (action: DashboardAction) => {
      dispatch({ type: "started", action });
      let outcome: { text: string; ok: boolean };
      try {
        outcome = await deps.run(action);
      } catch (err) {
        outcome = { text: message(err), ok: false };
      }
      if (!alive.current) return;
      dispatch({ type: "finished", ...outcome });
      await refresh();
    },
    [deps, refresh],
  );

  useEffect(() => {
    alive.current = true;
    void refresh();
    const timer = setInterval(() => void refresh(), props.refreshMs ?? 15_000);
    return () => {
      alive.current = false;
      clearInterval(timer);
    };
  }, [refresh, props.refreshMs]);

  // The tail follows each new snapshot (bound KBs may change) and then its own period.
  useEffect(() => {
    if (!state.snapshot) return;
    void tail();
    const timer = setInterval(() => void tail(), props.tailMs ?? 5_000);
    return () => clearInterval(timer);
  }, [state.snapshot, tail, props.tailMs]);

  useInput((input, key) => {
    const command = commandForKey(stateRef.current, {
      input,
      upArrow: key.upArrow,
      downArrow: key.downArrow,
      return: key.return,
      escape: key.escape,
      ctrl: key.ctrl,
    });
    if (!command) return;
    if (command.kind === "quit") exit();
    else if (command.kind === "refresh") void refresh();
    else if (command.kind === "event") dispatch(command.event);
    else if (!stateRef.current.running) void run(command.action);
  });

  return h(DashboardView, {
    state,
    columns: props.columns,
    paint: props.paint,
    home: props.home,
    client: props.client,
  });
}
