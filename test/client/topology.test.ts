/** Which MCP entries are ours: `<name>` and `<name>-<kb>` pointing at `/mcp/<kb>`, no look-alike. */
import { describe, expect, it } from "vitest";
import { isOwnedEntry } from "../../src/client/topology.js";

describe("entry ownership", () => {
  it("owns <name> and <name>-<kb> → /mcp/<kb>, not look-alikes", () => {
    expect(isOwnedEntry("cartographer", "cartographer", undefined)).toBe(true);
    expect(isOwnedEntry("cartographer", "cartographer-a", "http://h/mcp/a")).toBe(true);
    expect(isOwnedEntry("cartographer", "cartographer-a", "http://h/other")).toBe(false);
    expect(isOwnedEntry("cartographer", "cartographerx", "http://h/mcp/x")).toBe(false);
  });
});
