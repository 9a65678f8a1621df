/**
 * The stdio baseline: a bare SDK server (McpServer + StdioServerTransport, one echo tool), run
 * by plain node. Whatever Cartographer's stdio start costs beyond this is ours.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "bare", version: "0.0.0" });
server.registerTool(
  "echo",
  { description: "Echo the text back", inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: "text", text }] }),
);
await server.connect(new StdioServerTransport());
