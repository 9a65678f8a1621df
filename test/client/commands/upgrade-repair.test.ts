import { describe, expect, it } from "vitest";
import { syncRefusal } from "../../../src/client/commands/upgrade-repair.js";

describe("upgrade-repair syncs only against a server on this machine", () => {
  it.each([
    "http://127.0.0.1:39273",
    "http://127.0.0.1:39273/mcp",
    "http://localhost:8080/",
    "http://[::1]:39273",
  ])("%s is synced", (url) => {
    expect(syncRefusal(url)).toBeUndefined();
  });

  it.each([
    ["https://127.0.0.1:39273", "not a server on this machine"],
    ["http://kb.example.org", "not a server on this machine"],
    ["http://10.0.0.2:39273", "not a server on this machine"],
    ["not a url", "is not a URL"],
  ])("%s is not (%s)", (url, why) => {
    expect(syncRefusal(url)).toContain(why);
  });
});
