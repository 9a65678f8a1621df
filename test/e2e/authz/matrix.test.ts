/**
 * The authorization matrix (D118), end to end: every registered tool × every principal × both
 * endpoint kinds, over real HTTP with the SDK client, against the expectations in table.ts.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allTools } from "../../../src/tools/registry.js";
import { INITIALIZE, MCP_HEADERS, postInit, raw } from "../../http/helpers.js";
import {
  type AuthzServer,
  connect,
  IN,
  outcome,
  PRINCIPALS,
  startAuthzServer,
  TOKENS,
  type Who,
} from "../../support/authz.js";
import { type Expect, ROLE_EXTRAS, ROWS, type Row } from "./table.js";

let s: AuthzServer;
beforeAll(async () => {
  s = await startAuthzServer();
}, 30_000);
afterAll(async () => {
  await s?.close();
});

const DENIALS = new Set(["forbidden", "not found"]);

function expected(row: Row, who: Who, side: 0 | 1): Expect | 401 {
  if (who === "none") return 401;
  if (who === "admin" || who === "rw") return "allow";
  if (who === "r") return row.r;
  if (who === "other") return Array.isArray(row.other) ? row.other[side] : row.other;
  return row.role[side];
}

/** A tools/call over a raw POST (for principals the metadata gate keeps from initializing). */
async function rawCall(path: string, who: Who, name: string, args: Record<string, unknown>) {
  const headers: Record<string, string> = { ...MCP_HEADERS };
  if (who !== "none") headers.Authorization = `Bearer ${TOKENS[who]}`;
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name, arguments: args },
  });
  return raw(s.server.port, { path, headers, body });
}

function assertAnswer(label: string, want: Expect, got: { text: string; isError: boolean }) {
  if (want === "allow") {
    expect(DENIALS.has(got.text), `${label}: denied with ${got.text}`).toBe(false);
  } else {
    expect({ label, text: got.text, isError: got.isError }).toEqual({
      label,
      text: want,
      isError: true,
    });
  }
}

describe("the matrix covers every registered tool", () => {
  it("has exactly one row per tool of allTools()", () => {
    expect(ROWS.map((r) => r.tool).sort()).toEqual(
      allTools()
        .map((t) => t.name)
        .sort(),
    );
  });
});

for (const endpoint of ["/mcp/main", "/mcp/routed"] as const) {
  describe(`${endpoint}: every tool × every principal answers as the table says`, () => {
    const clients = new Map<Who, Client>();
    const withKb = (args: Record<string, unknown>) =>
      endpoint === "/mcp/routed" ? { ...args, kb: "main" } : args;

    beforeAll(async () => {
      for (const who of PRINCIPALS) {
        // Per-KB `other` is refused at initialize (asserted below) and calls over raw POSTs.
        if (who === "none" || (who === "other" && endpoint === "/mcp/main")) continue;
        clients.set(who, await connect(s.server.url, endpoint, who));
      }
    }, 30_000);
    afterAll(async () => {
      for (const c of clients.values()) await c.close();
    });

    async function call(who: Who, name: string, args: Record<string, unknown>) {
      const client = clients.get(who);
      if (client) return outcome(await client.callTool({ name, arguments: withKb(args) }));
      const r = await rawCall(endpoint, who, name, withKb(args));
      if (who === "none") return { text: String(r.status), isError: true };
      expect(r.status).toBe(200);
      return outcome((r.json() as { result: unknown }).result);
    }

    for (const row of ROWS) {
      it(row.tool, async () => {
        for (const who of PRINCIPALS) {
          for (const side of [0, 1] as const) {
            const args = side === 0 ? row.inside : row.outside;
            const want = expected(row, who, side);
            const got = await call(who, row.tool, args);
            const label = `${row.tool} ${who} ${side === 0 ? "inside" : "outside"}`;
            if (want === 401) expect(got.text, label).toBe("401");
            else assertAnswer(label, want, got);
          }
        }
      });
    }

    it("unparsable arguments and unknown tools are writes: forbidden unless admin", async () => {
      const bad = { id: IN, resolution: "not-a-resolution" };
      for (const who of ["r", "rw", "role"] as const) {
        assertAnswer(`bad args ${who}`, "forbidden", await call(who, "conflict_resolve", bad));
        assertAnswer(`unknown ${who}`, "forbidden", await call(who, "no_such_tool", {}));
      }
      expect((await call("admin", "conflict_resolve", bad)).text).toMatch(/^invalid_argument: /);
    });

    it("role extras: other type in the same map, type change, link rewriting, depth, root index", async () => {
      for (const extra of ROLE_EXTRAS) {
        assertAnswer(
          `${extra.tool} role extra`,
          extra.role,
          await call("role", extra.tool, extra.args),
        );
        assertAnswer(
          `${extra.tool} admin extra`,
          "allow",
          await call("admin", extra.tool, extra.args),
        );
      }
    });
  });
}

describe("metadata gate (initialize, tools/list)", () => {
  const initText = async (path: string, who: Who) => {
    const r = await postInit(
      s.server.port,
      path,
      who === "none" ? {} : { Authorization: `Bearer ${TOKENS[who]}` },
    );
    return {
      status: r.status,
      body: r.json() as { result?: unknown; error?: { message: string } },
    };
  };

  it("a principal with no read access to any KB of the endpoint gets exactly forbidden", async () => {
    for (const [path, who] of [
      ["/mcp/main", "other"],
      ["/mcp/other", "r"],
      ["/mcp/other", "role"],
      ["/mcp/routed?kbs=main", "other"],
      ["/mcp/routed?kbs=other", "role"],
      ["/mcp/routed?kbs=other", "rw"],
    ] as [string, Who][]) {
      const got = await initText(path, who);
      expect({ path, who, message: got.body.error?.message }).toEqual({
        path,
        who,
        message: "forbidden",
      });
    }
    const list = await raw(s.server.port, {
      path: "/mcp/main",
      headers: { ...MCP_HEADERS, Authorization: `Bearer ${TOKENS.other}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
    });
    expect((list.json() as { error?: { message: string } }).error?.message).toBe("forbidden");
  });

  it("on /mcp/routed the gate counts bound KBs only", async () => {
    for (const [path, who] of [
      ["/mcp/routed", "other"],
      ["/mcp/routed?kbs=main,other", "other"],
      ["/mcp/routed?kbs=other", "other"],
      ["/mcp/routed?kbs=main", "role"],
      ["/mcp/main", "role"],
      ["/mcp/other", "admin"],
    ] as [string, Who][]) {
      const got = await initText(path, who);
      expect({ path, who, ok: got.body.result !== undefined }).toEqual({ path, who, ok: true });
    }
  });

  it("no token → 401 on initialize", async () => {
    expect((await initText("/mcp/main", "none")).status).toBe(401);
    expect(INITIALIZE).toContain("initialize");
  });
});
