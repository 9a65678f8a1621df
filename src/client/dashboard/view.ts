/**
 * The whole screen from the state (presentation only): the panels laid out for the width, the
 * status line, the key bar of the keys that do something now, the help overlay and the
 * disconnect question.
 */
import { Box, Text } from "ink";
import { createElement as h, type ReactElement } from "react";
import { boundKbs } from "./changes.js";
import { layoutFor, type Palette } from "./layout.js";
import { ChangesPanel, ProvidersPanel, ServerPanel } from "./panels.js";
import { availableKeys, type DashboardState, runningText } from "./state.js";

export interface ViewProps {
  state: DashboardState;
  columns: number;
  paint: Palette;
  home: string;
  /** This CLI's version. */
  client: string;
}

/** Every key, for the help overlay; the key bar shows only those that apply now. */
export const HELP_LINES: readonly (readonly [string, string])[] = [
  ["↑/↓ j/k", "select a provider"],
  ["Enter", "connect the selected provider, or sync it when connected"],
  ["s", "sync the selected provider (its entries and artifacts)"],
  ["S", "sync every connected provider"],
  ["d", "disconnect the selected provider (asks first)"],
  ["r", "refresh now (also every few seconds)"],
  ["?", "this help; Esc closes it"],
  ["q", "quit"],
];

function KeyBar(props: { state: DashboardState; paint: Palette }): ReactElement {
  const keys = availableKeys(props.state);
  const parts = keys.flatMap((k, i) => [
    ...(i > 0 ? [" · "] : []),
    h(Text, { key: k.key, bold: true, ...props.paint("accent") }, k.key),
    ` ${k.label}`,
  ]);
  return h(Text, { wrap: "wrap" }, ...parts);
}

function StatusLine(props: { state: DashboardState; paint: Palette }): ReactElement {
  const { state, paint } = props;
  if (state.running) return h(Text, paint("accent"), runningText(state.running));
  if (state.message)
    return h(
      Text,
      { wrap: "wrap", ...paint(state.message.ok ? "good" : "warn") },
      state.message.text,
    );
  if (state.snapshotError) return h(Text, { wrap: "wrap", ...paint("bad") }, state.snapshotError);
  return h(Text, paint("dim"), state.loading ? "checking…" : " ");
}

function Help(props: { paint: Palette }): ReactElement {
  return h(
    Box,
    { flexDirection: "column", borderStyle: "round", paddingX: 1 },
    h(Text, { bold: true, ...props.paint("accent") }, "Keys"),
    ...HELP_LINES.map(([key, what]) => h(Text, { key }, `${key.padEnd(9)} ${what}`)),
    h(Text, props.paint("dim"), "Keys that cannot act now are left out of the bar below."),
  );
}

function Confirm(props: { provider: string; paint: Palette }): ReactElement {
  return h(
    Box,
    { borderStyle: "round", paddingX: 1, flexDirection: "column" },
    h(
      Text,
      { wrap: "wrap", ...props.paint("warn") },
      `Disconnect ${props.provider}? This removes its MCP entry, its instructions block and the artifacts cartographer wrote for it.`,
    ),
    h(Text, { bold: true }, "y/N"),
  );
}

export function DashboardView(props: ViewProps): ReactElement {
  const { state, paint } = props;
  const layout = layoutFor(props.columns);
  const title = h(
    Text,
    { wrap: "truncate-end" },
    h(Text, { bold: true, ...paint("accent") }, "Cartographer"),
    ` ${props.client}`,
  );
  const snapshot = state.snapshot;
  let body: ReactElement;
  if (state.help) body = h(Help, { paint });
  else if (!snapshot) body = h(Text, paint("dim"), state.snapshotError ? " " : "checking…");
  else {
    const common = { layout, paint };
    const providers = h(ProvidersPanel, {
      ...common,
      snapshot,
      selected: state.selected,
      home: props.home,
    });
    const changes = h(ChangesPanel, {
      ...common,
      changes: state.changes,
      kbs: boundKbs(snapshot),
      ...(state.changesError ? { error: state.changesError } : {}),
    });
    const server = h(ServerPanel, { ...common, snapshot, home: props.home, client: props.client });
    body =
      layout === "wide"
        ? h(
            Box,
            { flexDirection: "column" },
            server,
            h(Box, { flexDirection: "row" }, providers, changes),
          )
        : h(Box, { flexDirection: "column" }, server, providers, changes);
  }
  return h(
    Box,
    { flexDirection: "column", width: props.columns },
    title,
    body,
    state.confirm ? h(Confirm, { provider: state.confirm, paint }) : null,
    h(StatusLine, { state, paint }),
    h(KeyBar, { state, paint }),
  );
}
