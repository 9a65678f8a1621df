import { describe, expect, it } from "vitest";
import { normalizeKbName } from "../../../src/cli/config/values.js";
import { resolveMcpRoute } from "../../../src/http/routes.js";
import { resolveKbName } from "../../../src/kb/core/kb-name.js";

describe("KB names keep their case; another case resolves only when unambiguous", () => {
  it("a folder name keeps its case (Go: the folder name as is)", () => {
    expect(normalizeKbName("kbA")).toBe("kbA");
    expect(normalizeKbName("Beta Team")).toBe("Beta-Team");
  });

  it("exact first, then the one case-insensitive match, else null", () => {
    expect(resolveKbName("kbA", ["kbA", "kbB"])).toBe("kbA");
    expect(resolveKbName("kba", ["kbA", "kbB"])).toBe("kbA");
    expect(resolveKbName("KBA", ["kbA"])).toBe("kbA");
    expect(resolveKbName("kba", ["kbA", "KBA"])).toBeNull();
    expect(resolveKbName("KBA", ["kbA", "KBA"])).toBe("KBA");
    expect(resolveKbName("kbc", ["kbA"])).toBeNull();
  });

  it("?kb=, /mcp/<name> and ?kbs= find a KB by its name as written or, unambiguously, in another case", () => {
    const q = (s: string) => new URLSearchParams(s);
    const mounted = ["kbA", "kbB"];
    expect(resolveMcpRoute("/mcp", q("kb=kbA"), mounted)).toMatchObject({
      ok: true,
      target: { kind: "kb", kb: "kbA" },
    });
    expect(resolveMcpRoute("/mcp", q("kb=kba"), mounted)).toMatchObject({
      ok: true,
      target: { kind: "kb", kb: "kbA" },
    });
    expect(resolveMcpRoute("/mcp/KBB", q(""), mounted)).toMatchObject({
      ok: true,
      target: { kind: "kb", kb: "kbB" },
    });
    expect(resolveMcpRoute("/mcp/kbB", q("kb=kbb"), mounted)).toMatchObject({ ok: true });
    expect(resolveMcpRoute("/mcp/routed", q("kbs=kba,kbB"), mounted)).toMatchObject({
      ok: true,
      target: { kind: "routed", kbs: ["kbA", "kbB"] },
    });
    expect(resolveMcpRoute("/mcp", q("kb=kba"), ["kbA", "KBA"])).toMatchObject({
      ok: false,
      status: 404,
    });
  });
});
