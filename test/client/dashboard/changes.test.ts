/**
 * The live tail's pure parts: which KBs are bound (connected providers only, a binding without
 * KBs reaches all), how a `changes_since` answer becomes rows, and the newest-first merge.
 */
import { describe, expect, it } from "vitest";
import { boundKbs, mergeChanges, rowsOf } from "../../../src/client/dashboard/changes.js";
import { freshSnapshot, snapshot } from "./snapshots.js";

describe("boundKbs", () => {
  it("is every mounted KB for a binding without KBs, the named ones otherwise, none unconnected", () => {
    expect(boundKbs(snapshot())).toEqual(["notes", "wiki"]);
    const one = snapshot();
    one.providers[0] = { ...(one.providers[0] as (typeof one.providers)[0]), kbs: ["wiki"] };
    expect(boundKbs(one)).toEqual(["wiki"]);
    expect(boundKbs(freshSnapshot())).toEqual([]);
  });
});

describe("rowsOf and mergeChanges", () => {
  it("reads id, change, time and the first subject; skips malformed items and bad JSON", () => {
    const text = JSON.stringify({
      since: "2026-12-06T00:00:00Z",
      changes: [
        { id: "a", change: "added", last_time: "2026-12-07T10:00:00Z", subjects: ["s1", "s2"] },
        { change: "added" },
        null,
      ],
    });
    expect(rowsOf("notes", text)).toEqual([
      { kb: "notes", id: "a", change: "added", time: "2026-12-07T10:00:00Z", subject: "s1" },
    ]);
    expect(rowsOf("notes", "not json")).toEqual([]);
  });

  it("merges KBs newest first and keeps the limit", () => {
    const row = (kb: string, time: string) => ({
      kb,
      id: time,
      change: "modified",
      time,
      subject: "",
    });
    const merged = mergeChanges(
      [
        row("a", "2026-12-07T10:00:00Z"),
        row("b", "2026-12-07T12:00:00Z"),
        row("a", "2026-12-07T11:00:00Z"),
      ],
      2,
    );
    expect(merged.map((r) => r.kb)).toEqual(["b", "a"]);
    expect(merged.map((r) => r.time)).toEqual(["2026-12-07T12:00:00Z", "2026-12-07T11:00:00Z"]);
  });
});
