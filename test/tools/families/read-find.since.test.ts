import { afterEach, describe, expect, it } from "vitest";
import { isKbError } from "../../../src/common/errors.js";
import { parseSince } from "../../../src/tools/families/read-find.js";

const NOW = new Date("2024-06-01T00:00:00Z");

describe("changes_since `since`", () => {
  const savedTz = process.env.TZ;
  afterEach(() => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });

  it("reads a time without a zone as UTC, like concept_list bounds, whatever the server's zone", () => {
    process.env.TZ = "America/New_York";
    expect(parseSince("2024-05-01T10:00:00", NOW).toISOString()).toBe("2024-05-01T10:00:00.000Z");
    expect(parseSince("2024-05-01", NOW).toISOString()).toBe("2024-05-01T00:00:00.000Z");
    expect(parseSince("2024-05-01T12:00:00+02:00", NOW).toISOString()).toBe(
      "2024-05-01T10:00:00.000Z",
    );
    expect(parseSince("2d", NOW).toISOString()).toBe("2024-05-30T00:00:00.000Z");
  });

  it("refuses out-of-range durations and dates with invalid_argument, never Invalid time value", () => {
    for (const bad of [
      "9999999999999h",
      "99999999999d",
      "300000000d",
      "+275760-09-13",
      "10000-01-01",
    ]) {
      try {
        parseSince(bad, NOW);
        expect.unreachable(`accepted ${bad}`);
      } catch (err) {
        expect(isKbError(err, "invalid_argument"), `${bad}: ${(err as Error).message}`).toBe(true);
      }
    }
    // The widest accepted values still answer.
    expect(parseSince("1900-01-01", NOW).toISOString()).toBe("1900-01-01T00:00:00.000Z");
    expect(parseSince("100000d", NOW).getUTCFullYear()).toBe(1750);
  });

  it("refuses impossible dates and trailing prose with invalid_argument", () => {
    for (const bad of ["2024-02-30", "2024-05-01 and then some", "2024-05-01Tnoon", "7 d"]) {
      try {
        parseSince(bad, NOW);
        expect.unreachable(`accepted ${bad}`);
      } catch (err) {
        expect(isKbError(err, "invalid_argument"), bad).toBe(true);
      }
    }
  });
});
