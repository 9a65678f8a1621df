/** docs/migrating-from-go.md's Go config key table is the go-keys.ts table. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DOC_PATH, withConfigKeys } from "../../../scripts/config-keys-doc.js";

describe("Go config key table in docs/migrating-from-go.md", () => {
  it("is up to date (regenerate: npx tsx scripts/config-keys-doc.ts)", () => {
    const doc = readFileSync(DOC_PATH, "utf8");
    expect(withConfigKeys(doc)).toBe(doc);
  });
});
