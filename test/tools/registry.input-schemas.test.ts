/**
 * Every registered tool's input schema, byte for byte — advanced and artifact tools included,
 * which the agent-profile golden (test/mcp/kb-surface.listing.test.ts) does not list. The file was
 * written by the hand-written schemas before defineTool existed, so it pins that the typed
 * builder emits exactly what they did.
 *
 * When a schema changes ON PURPOSE, regenerate it with
 *   UPDATE_GOLDEN=1 npx vitest run test/tools/registry.input-schemas.test.ts
 * and review the diff of test/tools/golden/input-schemas.json before committing it.
 */
import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { allTools } from "../../src/tools/registry.js";

const GOLDEN = new URL("./golden/input-schemas.json", import.meta.url);

describe("input schemas", () => {
  it("every tool's inputSchema matches the golden file byte for byte", async () => {
    const schemas: Record<string, unknown> = {};
    for (const t of allTools()) schemas[t.name] = t.inputSchema;
    const text = `${JSON.stringify(schemas, null, 2)}\n`;
    if (process.env.UPDATE_GOLDEN === "1") {
      await writeFile(GOLDEN, text);
      return;
    }
    const golden = await readFile(GOLDEN, "utf8");
    expect(
      text === golden,
      "input schemas differ from test/tools/golden/input-schemas.json; if intended, run " +
        "UPDATE_GOLDEN=1 npx vitest run test/tools/registry.input-schemas.test.ts and review the diff",
    ).toBe(true);
  });
});
