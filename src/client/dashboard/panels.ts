/**
 * The three panels (presentation only, from a StatusSnapshot): the server, the providers and the
 * live tail of changes. Components are plain `createElement` calls in .ts files, so the
 * architecture checks read them like every other module (docs/decisions.md "Dashboard").
 */
import { Box, Text } from "ink";
import { createElement as h, type ReactElement } from "react";
import type { KbHealth } from "../health.js";
import type { KindDrift, ProviderFacts, StatusSnapshot } from "../lib/status-snapshot.js";
import { type Layout, type Palette, shortTime, tildePath, toneOf } from "./layout.js";
import type { ChangeRow } from "./state.js";

export interface PanelProps {
  layout: Layout;
  paint: Palette;
}

const line = (key: string, ...children: (ReactElement | string)[]) =>
  h(Text, { key, wrap: "truncate-end" }, ...children);

function word(paint: Palette, text: string, tone = toneOf(text)): ReactElement {
  return h(Text, paint(tone), text);
}

function panel(title: string, paint: Palette, children: ReactElement[], grow = 1): ReactElement {
  return h(
    Box,
    { flexDirection: "column", borderStyle: "round", paddingX: 1, flexGrow: grow, flexBasis: 0 },
    h(Text, { bold: true, ...paint("accent") }, title),
    ...children,
  );
}

/** A KB's facts: one line from 80 columns; at 60, trouble (sync, conflicts) on a second. */
function kbLines(kb: KbHealth, layout: Layout, paint: Palette): ReactElement[] {
  const index = kb.index
    ? `index ${kb.index.state}${kb.index.total !== undefined ? ` ${kb.index.done ?? 0}/${kb.index.total}` : ""}`
    : "index ?";
  const sync = kb.sync ? `sync stopped: ${kb.sync}` : "sync ok";
  const conflicts = kb.conflicts > 0 ? `${kb.conflicts} conflicts` : "no conflicts";
  const head = [`  ${kb.name} `, word(paint, kb.status)];
  if (layout !== "narrow")
    return [line(`kb-${kb.name}`, ...head, ` · ${[index, sync, conflicts].join(" · ")}`)];
  const trouble = [kb.sync ? sync : "", kb.conflicts > 0 ? conflicts : ""].filter(Boolean);
  return [
    line(`kb-${kb.name}`, ...head, ` · ${index}`),
    ...(trouble.length > 0
      ? [line(`kb-${kb.name}-trouble`, h(Text, paint("warn"), `    ${trouble.join(" · ")}`))]
      : []),
  ];
}

export function ServerPanel(
  props: PanelProps & { snapshot: StatusSnapshot; home: string; client: string },
): ReactElement {
  const { snapshot: s, layout, paint } = props;
  const rows: ReactElement[] = [];
  if (!s.server.reachable) {
    rows.push(line("url", `${s.server.url} `, word(paint, "unreachable")));
    rows.push(line("why", h(Text, paint("bad"), s.server.error.message)));
  } else {
    const { health } = s.server;
    const shape = health.routedPath ? `routed (${health.routedPath})` : health.mountMode;
    rows.push(
      line(
        "url",
        `${s.server.url} `,
        word(paint, "reachable", "good"),
        " · ",
        word(paint, health.ready ? "ready" : "not ready"),
        layout === "narrow" ? "" : ` · ${shape}`,
      ),
    );
    rows.push(line("versions", `server ${health.version || "?"} · client ${props.client}`));
    if (health.kbStates.length === 0) rows.push(line("no-kbs", "  no KB mounted"));
    for (const kb of health.kbStates) rows.push(...kbLines(kb, layout, paint));
  }
  const token = s.tokenEnv ? ` · token $${s.tokenEnv}` : "";
  rows.push(
    line(
      "config",
      h(
        Text,
        paint("dim"),
        `${tildePath(props.home, s.configFile)}${s.configExists ? "" : " (none yet)"}${token}`,
      ),
    ),
  );
  for (const [i, m] of (s.report?.messages ?? []).entries())
    rows.push(line(`msg-${i}`, h(Text, paint("warn"), `! ${m}`)));
  for (const [i, b] of (s.report?.blockers ?? []).entries())
    rows.push(line(`blk-${i}`, h(Text, paint("warn"), `! not usable: ${b.split("\n")[0]}`)));
  return panel("Server", paint, rows, 0);
}

const counts = (list: KindDrift[]) => list.map((d) => `${d.kind} ${d.count}`).join(" · ");

/** What the entry check found beyond the badge: stale or orphaned entries, no instructions. */
function entryProblems(p: ProviderFacts): string {
  const c = p.check;
  if (!c) return "";
  const parts: string[] = [];
  if (c.error) parts.push(c.error);
  if (c.stale.length > 0) parts.push(`stale entry ${c.stale.join(", ")}`);
  if (c.orphans.length > 0) parts.push(`orphaned ${c.orphans.join(", ")}`);
  if (!c.instructions) parts.push("no instructions block");
  return parts.join(" · ");
}

function providerDetail(p: ProviderFacts, paint: Palette, indent: string): ReactElement[] {
  if (!p.connected) return [];
  const rows: ReactElement[] = [];
  const badge = p.badge ?? "unknown";
  const artifacts =
    p.drift.length > 0 ? `drift ${counts(p.drift)}` : p.badge ? "in-sync" : "unknown";
  rows.push(
    line(
      `${p.id}-mcp`,
      `${indent}mcp-config `,
      word(paint, badge, p.badge ? toneOf(badge) : "dim"),
      "  artifacts ",
      word(paint, artifacts, p.drift.length > 0 ? "warn" : p.badge ? "good" : "dim"),
    ),
  );
  const entries = entryProblems(p);
  if (entries) rows.push(line(`${p.id}-entries`, `${indent}`, word(paint, entries, "warn")));
  if (p.held.length > 0)
    rows.push(
      line(`${p.id}-held`, `${indent}trust `, word(paint, `held ${counts(p.held)}`, "warn")),
    );
  return rows;
}

export function ProvidersPanel(
  props: PanelProps & { snapshot: StatusSnapshot; selected: number; home: string },
): ReactElement {
  const { snapshot, layout, paint } = props;
  const rows: ReactElement[] = [];
  for (const [i, p] of snapshot.providers.entries()) {
    const mark = i === props.selected ? "›" : " ";
    const state = p.connected ? "connected" : "disconnected";
    const scope = p.connected && p.scope && layout !== "narrow" ? ` (${p.scope})` : "";
    const detected = p.detected ? "detected" : "not detected";
    // The file its entry lives in, where the width allows.
    const file = p.check && layout !== "narrow" ? ` · ${tildePath(props.home, p.check.file)}` : "";
    rows.push(
      line(
        `${p.id}`,
        h(Text, { bold: i === props.selected }, `${mark} ${p.id.padEnd(12)}`),
        word(paint, state, p.connected ? "good" : "dim"),
        scope,
        h(Text, paint("dim"), ` · ${detected}${file}`),
      ),
    );
    rows.push(...providerDetail(p, paint, "    "));
  }
  const trusted = snapshot.trusted.length > 0 ? `trusted KBs: ${snapshot.trusted.join(", ")}` : "";
  if (trusted) rows.push(line("trusted", h(Text, paint("dim"), trusted)));
  return panel("Providers", paint, rows, layout === "wide" ? 3 : 1);
}

export function ChangesPanel(
  props: PanelProps & { changes: ChangeRow[]; error?: string; kbs: string[] },
): ReactElement {
  const { layout, paint } = props;
  const rows: ReactElement[] = [];
  if (props.error) rows.push(line("err", h(Text, paint("bad"), props.error)));
  else if (props.kbs.length === 0)
    rows.push(line("none", h(Text, paint("dim"), "no KB bound yet")));
  else if (props.changes.length === 0)
    rows.push(line("none", h(Text, paint("dim"), `no changes in ${props.kbs.join(", ")} today`)));
  for (const [i, c] of props.changes.entries()) {
    const where = props.kbs.length > 1 ? `${c.kb}/` : "";
    const subject = layout === "narrow" ? "" : `  ${c.subject}`;
    rows.push(
      line(
        `c-${i}`,
        h(Text, paint("dim"), shortTime(c.time)),
        ` ${c.change.padEnd(8)} ${where}${c.id}`,
        subject,
      ),
    );
  }
  return panel("Recent changes", paint, rows, layout === "wide" ? 2 : 1);
}
