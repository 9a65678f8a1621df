/**
 * Widths and colours (pure): the three layouts the dashboard draws (60, 80 and 120 columns and
 * up), and the palette, empty under NO_COLOR so no escape sequence for colour is written.
 */

/** narrow: under 80 columns (60 is the design width); medium: 80–119; wide: 120 and up. */
export type Layout = "narrow" | "medium" | "wide";

export function layoutFor(columns: number): Layout {
  if (columns >= 120) return "wide";
  if (columns >= 80) return "medium";
  return "narrow";
}

/** What a fact means, for its colour. */
export type Tone = "good" | "warn" | "bad" | "dim" | "accent";

const COLOURS: Record<Tone, string> = {
  good: "green",
  warn: "yellow",
  bad: "red",
  dim: "gray",
  accent: "cyan",
};

/** Ink `color` props for a tone; none at all when colour is off. */
export type Palette = (tone: Tone) => { color?: string };

export function palette(colour: boolean): Palette {
  return (tone) => (colour ? { color: COLOURS[tone] } : {});
}

/** The tone of a badge or state word. */
export function toneOf(word: string): Tone {
  if (word === "in-sync" || word === "ok" || word === "ready" || word === "connected")
    return "good";
  if (word === "missing" || word === "unavailable" || word === "failed" || word === "unreachable")
    return "bad";
  return "warn";
}

/** `2026-12-07T15:04:05Z` → `12-07 15:04` (UTC, as the server wrote it). */
export function shortTime(iso: string): string {
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(iso) ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso;
}

/** `~/…` for a path under home. */
export function tildePath(home: string, file: string): string {
  return file.startsWith(`${home}/`) ? `~${file.slice(home.length)}` : file;
}
