/**
 * MCP descriptors: only well-formed ones without literal secrets are offered, and only when the
 * KB's allow-list names the same name, transport and target (URL compared normalized).
 */
import { describe, expect, it } from "vitest";
import {
  type McpAllowEntry,
  mcpAllowed,
  normalizeMcpUrl,
  parseMcpDescriptor,
} from "../../../src/common/provisioning/mcp-descriptor.js";

const ok = (text: string) => {
  const r = parseMcpDescriptor(text);
  if ("error" in r) throw new Error(r.error);
  return r.descriptor;
};
const err = (text: string) => {
  const r = parseMcpDescriptor(text);
  return "error" in r ? r.error : null;
};
const REF = "$" + "{TOKEN}";

describe("parseMcpDescriptor", () => {
  it("accepts http with VAR-reference headers and stdio with args and VAR-reference env", () => {
    expect(ok(JSON.stringify({ type: "http", url: "https://a.example/mcp" })).type).toBe("http");
    ok(
      JSON.stringify({
        type: "http",
        url: "https://a.example/mcp",
        headers: { Authorization: `Bearer ${REF}` },
      }),
    );
    ok(JSON.stringify({ type: "stdio", command: "mcp-files", args: ["--ro"], env: { KEY: REF } }));
    ok(JSON.stringify({ type: "stdio", command: "/usr/local/bin/mcp-files" }));
  });

  it("refuses literal secrets, shell syntax, unknown fields and the other transport's fields", () => {
    const cases: [unknown, RegExp][] = [
      [
        { type: "http", url: "https://a.example", headers: { Authorization: "Bearer s3cret" } },
        /headers\.Authorization/,
      ],
      [{ type: "stdio", command: "mcp", env: { KEY: "literal" } }, /env\.KEY/],
      [{ type: "stdio", command: "sh -c 'curl x|sh'" }, /command/],
      [{ type: "stdio", command: "../bin/mcp" }, /command/],
      [{ type: "stdio", command: "mcp", url: "https://a.example" }, /unknown field/],
      [{ type: "http", url: "https://user:pw@a.example/mcp" }, /credentials/],
      [{ type: "ws", url: "wss://a.example" }, /type/],
      [{ type: "http", url: "https://a.example", extra: 1 }, /unknown field/],
    ];
    for (const [desc, want] of cases)
      expect(err(JSON.stringify(desc)), JSON.stringify(desc)).toMatch(want);
    expect(err("{not json")).toBe("not valid JSON");
    // The error never quotes a header value.
    expect(
      err(JSON.stringify({ type: "http", url: "https://a.example", headers: { X: "s3cret" } })),
    ).not.toContain("s3cret");
  });
});

describe("mcpAllowed", () => {
  const http = ok(JSON.stringify({ type: "http", url: "https://Tools.Example.com:443/mcp" }));
  const stdio = ok(JSON.stringify({ type: "stdio", command: "mcp-files" }));
  const list: McpAllowEntry[] = [
    { name: "tools", transport: "http", target: "https://tools.example.com/mcp" },
    { name: "files", transport: "stdio", target: "mcp-files" },
  ];

  it("matches name, transport and normalized target", () => {
    expect(normalizeMcpUrl("https://Tools.Example.com:443/mcp")).toBe(
      "https://tools.example.com/mcp",
    );
    expect(mcpAllowed(list, "tools", http)).toBe(true);
    expect(mcpAllowed(list, "files", stdio)).toBe(true);
  });

  it("denies a different name, transport or target, and everything without an allow-list", () => {
    expect(mcpAllowed(list, "other", http)).toBe(false);
    expect(
      mcpAllowed(
        list,
        "files",
        ok(JSON.stringify({ type: "stdio", command: "/usr/bin/mcp-files" })),
      ),
    ).toBe(false);
    expect(
      mcpAllowed(
        list,
        "tools",
        ok(JSON.stringify({ type: "http", url: "https://tools.example.com/mcp2" })),
      ),
    ).toBe(false);
    expect(
      mcpAllowed(
        [{ name: "tools", transport: "stdio", target: "https://tools.example.com/mcp" }],
        "tools",
        http,
      ),
    ).toBe(false);
    expect(mcpAllowed(undefined, "tools", http)).toBe(false);
    expect(mcpAllowed([], "files", stdio)).toBe(false);
  });
});
