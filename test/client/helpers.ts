import { promises as fs } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { CommandIo } from "../../src/client/commands.js";
import { tempDir } from "../support/temp-dir.js";

/**
 * A small stand-in server on 127.0.0.1: /health in the routed (this server) or per-KB (older
 * server) shape, and a real MCP endpoint (SDK Server, stateless Streamable HTTP, JSON
 * responses) with map_list / atlas_overview / search. State is mutable so a test can "restart"
 * the server in another shape.
 */
export interface FakeState {
  shape: "routed" | "per-kb";
  kbs: string[];
  version: string;
  token?: string;
  /** Answer /health with this HTTP status and an HTML body. */
  healthStatus?: number;
  /** Answer MCP POSTs with this HTTP status. */
  mcpStatus?: number;
  /** map_list answers isError. */
  mapListError?: boolean;
}

export interface FakeServer {
  url: string;
  state: FakeState;
  close(): Promise<void>;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = "";
    req.setEncoding("utf8");
    req.on("data", (c) => {
      data += c;
    });
    req.on("end", () => resolve(data));
    req.on("error", reject);
  });
}

function mcpServer(state: FakeState, bound: string[]): Server {
  const server = new Server(
    { name: "cartographer", version: state.version },
    { capabilities: { tools: {} } },
  );
  const kbProp = bound.length > 1 && state.shape === "routed";
  const schema = {
    type: "object" as const,
    properties: kbProp ? { kb: { type: "string", enum: bound } } : {},
    ...(kbProp ? { required: ["kb"] } : {}),
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: ["atlas_overview", "map_list", "search"].map((name) => ({ name, inputSchema: schema })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = (request.params.arguments ?? {}) as { kb?: string };
    const kb = kbProp ? args.kb : bound[0];
    if (!kb || !bound.includes(kb)) {
      return {
        isError: true,
        content: [
          { type: "text", text: `invalid_argument: kb must be one of ${bound.join(", ")}` },
        ],
      };
    }
    if (request.params.name === "map_list") {
      if (state.mapListError)
        return { isError: true, content: [{ type: "text", text: "not_found: no maps" }] };
      const maps = [
        { name: `${kb}-top` },
        { name: "shared" },
        { name: `${kb}-top/child`, parent: `${kb}-top` },
      ];
      return { content: [{ type: "text", text: JSON.stringify({ maps }) }] };
    }
    if (request.params.name === "atlas_overview") {
      return {
        content: [
          {
            type: "text",
            text: JSON.stringify({ kb, instructions: `Write in English in ${kb}.` }),
          },
        ],
      };
    }
    if (request.params.name === "artifact_manifest") {
      // As a server from before provisioning answers (src/mcp/call-pipeline.ts).
      return {
        isError: true,
        content: [{ type: "text", text: "tool not found: artifact_manifest" }],
      };
    }
    return { content: [{ type: "text", text: "[]" }] };
  });
  return server;
}

export async function startFakeServer(initial: Partial<FakeState> = {}): Promise<FakeServer> {
  const state: FakeState = { shape: "routed", kbs: ["alpha"], version: "1.0.0", ...initial };
  const httpServer = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/health") {
      if (state.healthStatus) {
        res.writeHead(state.healthStatus, { "content-type": "text/html" }).end("<html>oops</html>");
        return;
      }
      const body: Record<string, unknown> = {
        status: "ok",
        version: state.version,
        ready: true,
        kbs: state.kbs.map((name) => ({ name })),
      };
      if (state.shape === "routed")
        Object.assign(body, { mount_mode: "routed", routed_path: "/mcp/routed" });
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      return;
    }
    const m = /^\/mcp\/([^/]+)$/.exec(url.pathname);
    if (!m) {
      res.writeHead(404).end("not found");
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    if (state.mcpStatus) {
      res.writeHead(state.mcpStatus, { "content-type": "text/plain" }).end("server exploded");
      return;
    }
    if (state.token && req.headers.authorization !== `Bearer ${state.token}`) {
      res.writeHead(401, { "www-authenticate": "Bearer" }).end();
      return;
    }
    const name = decodeURIComponent(m[1] ?? "");
    let bound: string[];
    if (name === "routed" && state.shape === "routed") {
      const q = url.searchParams.get("kbs");
      bound = q ? q.split(",") : state.kbs;
    } else bound = [name];
    if (bound.some((k) => !state.kbs.includes(k))) {
      res.writeHead(400).end(`unknown KB; mounted: ${state.kbs.join(", ")}`);
      return;
    }
    const body = JSON.parse((await readBody(req)) || "null");
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const server = mcpServer(state, bound);
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
}

/** A sandbox $HOME (and a project dir inside it) with captured stdout/stderr. */
export interface Sandbox {
  home: string;
  cwd: string;
  io: CommandIo & { out: () => string; err: () => string; reset: () => void };
  read(rel: string): Promise<string>;
  write(rel: string, text: string): Promise<void>;
  exists(rel: string): Promise<boolean>;
  cleanup(): Promise<void>;
}

export async function sandbox(env: Record<string, string | undefined> = {}): Promise<Sandbox> {
  const t = tempDir("carto-client-");
  const home = t.dir;
  const cwd = path.join(home, "project");
  await fs.mkdir(cwd);
  let out = "";
  let err = "";
  const io = {
    home,
    cwd,
    env,
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    out: () => out,
    err: () => err,
    reset: () => {
      out = "";
      err = "";
    },
  };
  const abs = (rel: string) => path.join(home, rel);
  return {
    home,
    cwd,
    io,
    read: (rel) => fs.readFile(abs(rel), "utf8"),
    write: async (rel, text) => {
      await fs.mkdir(path.dirname(abs(rel)), { recursive: true });
      await fs.writeFile(abs(rel), text);
    },
    exists: (rel) =>
      fs.access(abs(rel)).then(
        () => true,
        () => false,
      ),
    cleanup: async () => t.cleanup(),
  };
}

export const PROVIDER_FILES = {
  claude: ".claude.json",
  codex: ".codex/config.toml",
  opencode: ".config/opencode/opencode.json",
  kiro: ".kiro/settings/mcp.json",
  antigravity: ".gemini/config/mcp_config.json",
} as const;

export const INSTRUCTION_FILES = {
  claude: ".claude/CLAUDE.md",
  codex: ".codex/AGENTS.md",
  opencode: ".config/opencode/AGENTS.md",
  kiro: ".kiro/steering/cartographer.md",
  antigravity: ".gemini/GEMINI.md",
} as const;
