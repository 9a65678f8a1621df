/** The sign-in page tells the configured session limits in words (signin.ts `span`). */
import { describe, expect, it } from "vitest";
import { span } from "../../src/console/signin.js";

describe("span", () => {
  it("says a limit in its largest whole unit", () => {
    expect(span(8 * 3_600_000)).toBe("8 hours");
    expect(span(86_400_000)).toBe("1 day");
    expect(span(36 * 3_600_000)).toBe("36 hours");
    expect(span(60 * 3_600_000)).toBe("2.5 days");
    expect(span(30 * 60_000)).toBe("30 minutes");
    expect(span(60_000)).toBe("1 minute");
    expect(span(90_000)).toBe("90 seconds");
    expect(span(2_000)).toBe("2 seconds");
    expect(span(1_000)).toBe("1 second");
  });
});
