/**
 * The stdio baseline of concept_read: a bare SDK server (McpServer + StdioServerTransport) with
 * one tool that reads the same concept file Cartographer would (`<kb>/data/<id>.md`) and answers
 * its text. `node bare-read-stdio-server.mjs <kb root>`. Whatever concept_read costs beyond this
 * is ours.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const root = process.argv[2];
if (!root) throw new Error("usage: bare-read-stdio-server.mjs <kb root>");
const server = new McpServer({ name: "bare", version: "0.0.0" });
server.registerTool(
  "concept_read",
  { description: "Read a concept file", inputSchema: { id: z.string() } },
  async ({ id }) => ({
    content: [{ type: "text", text: await readFile(path.join(root, "data", `${id}.md`), "utf8") }],
  }),
);
await server.connect(new StdioServerTransport());
