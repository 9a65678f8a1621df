/**
 * The activity page's query string → a feed filter and a cursor (pure). Dates are ISO times or
 * days (`2026-05-01`; an `until` day includes the whole day, UTC). A malformed value is a 400
 * naming the field.
 */
import { parseTimestamp } from "../../search/index.js";
import { checkFilter, type FeedFilter } from "../data/feed.js";
import { ConsoleError } from "../outcome.js";

export interface ActivityQuery {
  filter: FeedFilter;
  /** Raw commits read by the pages before this one. */
  at: number;
  /** Cursors of the pages before (the last is the previous page); at most MAX_BACK. */
  back: number[];
}

export const MAX_BACK = 20;
const DAY_MS = 86_400_000;

/** The query of the activity (and history) page. */
export function activityQuery(q: URLSearchParams): ActivityQuery {
  const filter: FeedFilter = {};
  const text = (name: string) => {
    const v = q.get(name)?.trim();
    return v === undefined || v === "" ? undefined : v;
  };
  const map = text("map");
  const tool = text("tool");
  const principal = text("principal");
  if (map !== undefined) filter.map = map;
  if (tool !== undefined) filter.tool = tool;
  if (principal !== undefined) filter.principal = principal.slice(0, 200);
  const since = text("since");
  const until = text("until");
  if (since !== undefined) filter.since = dateOf("since", since, false);
  if (until !== undefined) filter.until = dateOf("until", until, true);
  try {
    checkFilter(filter);
  } catch (err) {
    throw new ConsoleError("invalid_argument", (err as Error).message);
  }
  const at = cursorOf("at", text("at") ?? "0");
  const back = (text("back") ?? "")
    .split(".")
    .filter((s) => s !== "")
    .slice(-MAX_BACK)
    .map((s) => cursorOf("back", s));
  return { filter, at, back };
}

function dateOf(field: string, value: string, endOfDay: boolean): Date {
  const t = parseTimestamp(value);
  if (t === null || !Number.isFinite(t))
    throw new ConsoleError(
      "invalid_argument",
      `${field} "${value.slice(0, 40)}" is not a date: use 2026-05-01 or an ISO time`,
    );
  const dayOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  return new Date(endOfDay && dayOnly ? t + DAY_MS - 1 : t);
}

function cursorOf(field: string, value: string): number {
  if (!/^\d{1,9}$/.test(value))
    throw new ConsoleError("invalid_argument", `${field} must be a page cursor (a number)`);
  return Number(value);
}

/** The query of a filter as links carry it (dates as ISO). */
export function filterParams(f: FeedFilter): Record<string, string | undefined> {
  return {
    map: f.map,
    tool: f.tool,
    principal: f.principal,
    since: f.since?.toISOString(),
    until: f.until?.toISOString(),
  };
}
