/**
 * Rendering nothing (disconnect, doctor) renders no bootstrap hook either: before, a binding
 * with `bootstrap_hook: true` kept its `_bootstrap.sh` and its settings.json registration after
 * disconnect, and the lockfile forgot them. Real disk, the real Claude Code target.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ClientConfig } from "../../../src/client/config.js";
import { deprovisionBindings, provisionBindings } from "../../../src/client/provision/run.js";
import { provisionTargetFor } from "../../../src/client/provision/targets/index.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { prepared, recordingIo } from "../provision/support.js";

const newDir = useTempDirs("carto-prov-disc-boot-");

describe("disconnect with the bootstrap hook on", () => {
  it("removes the bootstrap script and its registration", async () => {
    const home = newDir();
    const config: ClientConfig = {
      server_url: "http://127.0.0.1:1",
      server_name: "cartographer",
      providers: [{ name: "claude", bootstrap_hook: true }],
    };
    const io = recordingIo(home);
    const opts = { write: true, force: false, targetFor: provisionTargetFor };
    await provisionBindings(io, config, config.providers, prepared([]), opts);
    const script = path.join(home, ".claude", "hooks", "cartographer", "_bootstrap.sh");
    const settings = path.join(home, ".claude", "settings.json");
    expect(existsSync(script), io.err()).toBe(true);
    expect(readFileSync(settings, "utf8")).toContain("_bootstrap.sh");

    const out = await deprovisionBindings(io, config, config.providers, provisionTargetFor);
    expect(out.errors).toEqual([]);
    expect(existsSync(script)).toBe(false);
    expect(readFileSync(settings, "utf8")).not.toContain("_bootstrap.sh");
  });
});
