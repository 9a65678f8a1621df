/**
 * The HTTP baseline of concept_read: a bare SDK server in the SDK's documented stateless pattern
 * (a fresh McpServer + StreamableHTTPServerTransport per POST, JSON responses, node:http) in its
 * own process, with one tool that reads the same concept file Cartographer would
 * (`<kb>/data/<id>.md`). `node bare-read-http-server.mjs <kb root>` prints `{"url": …}` once
 * listening. Whatever concept_read over HTTP costs beyond this is ours.
 */
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import path from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const root = process.argv[2];
if (!root) throw new Error("usage: bare-read-http-server.mjs <kb root>");

function newMcpServer() {
  const server = new McpServer({ name: "bare", version: "0.0.0" });
  server.registerTool(
    "concept_read",
    { description: "Read a concept file", inputSchema: { id: z.string() } },
    async ({ id }) => ({
      content: [
        { type: "text", text: await readFile(path.join(root, "data", `${id}.md`), "utf8") },
      ],
    }),
  );
  return server;
}

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch (e) {
        reject(e);
      }
    });
    req.on("error", reject);
  });
}

const http = createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/mcp") {
    res.writeHead(404).end();
    return;
  }
  (async () => {
    const body = await readJson(req);
    const server = newMcpServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  })().catch(() => {
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
});
http.listen(0, "127.0.0.1", () => {
  process.stdout.write(
    `${JSON.stringify({ url: `http://127.0.0.1:${http.address().port}/mcp` })}\n`,
  );
});
process.on("SIGTERM", () => {
  http.close(() => process.exit(0));
  http.closeAllConnections();
});
