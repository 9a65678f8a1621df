import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import {
  ClientError,
  classifyFetchFailure,
  ProtocolError,
  ServerUnreachableError,
  ToolError,
} from "./errors.js";
import type { FetchFn } from "./health.js";

/**
 * A short MCP session over Streamable HTTP with the official SDK client. Failures come out
 * typed: fetch-level failures are ServerUnreachableError, HTTP errors and non-MCP answers are
 * ProtocolError (with the status), and `isError` results are ToolError.
 */
export interface McpSession {
  listTools(): Promise<string[]>;
  /** Calls a tool and returns its text content; throws ToolError on `isError`. */
  callTool(name: string, args: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

/**
 * `operation` names what was asked (initialize, tools/list, a tool name). A JSON-RPC error the
 * server answered (e.g. -32003 forbidden for a token that may read none of the bound KBs) is
 * the server's answer, so a ToolError; the SDK's own request timeout is unreachable.
 */
function classify(url: string, operation: string, err: unknown): ClientError {
  if (err instanceof ClientError) return err;
  if (err instanceof StreamableHTTPError) {
    return new ProtocolError(url, err.code, clip(err.message));
  }
  if (err instanceof McpError) {
    if (err.code === ErrorCode.RequestTimeout) return new ServerUnreachableError(url, "timed out");
    if (err.code !== ErrorCode.ConnectionClosed) return new ToolError(operation, err.message);
  }
  // The SDK validates every answer with zod; a failure means the body was JSON but not a
  // JSON-RPC/MCP message (its raw issue list is pages long, so it is not repeated).
  if ((err as Error)?.name === "ZodError") {
    return new ProtocolError(
      url,
      undefined,
      `the answer to ${operation} is not an MCP (JSON-RPC) message; is this a Cartographer MCP endpoint?`,
    );
  }
  const message = (err as Error)?.message ?? String(err);
  const status = /HTTP (\d{3})/.exec(message)?.[1];
  return new ProtocolError(url, status ? Number(status) : undefined, clip(message));
}

/** An error page can be long HTML; one line of it is enough to say what came back. */
function clip(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

export async function openMcpSession(
  url: string,
  headers: Record<string, string>,
  fetchFn: FetchFn = fetch,
  timeoutMs = 10_000,
): Promise<McpSession> {
  // Network failures are classified at the fetch boundary, before the SDK wraps them.
  const guardedFetch: FetchFn = async (input, init) => {
    try {
      return await fetchFn(input, {
        ...init,
        signal: init?.signal ?? AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const c = classifyFetchFailure(url, err);
      if (c instanceof ServerUnreachableError) throw c;
      throw err;
    }
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    fetch: guardedFetch,
  });
  const client = new Client({ name: "cartographer-client", version: "0.1.0" });
  const unwrap = (err: unknown, operation: string): ClientError => {
    const cause = (err as { cause?: unknown })?.cause;
    if (cause instanceof ServerUnreachableError) return cause;
    return classify(url, operation, err);
  };
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (err) {
    await client.close().catch(() => {});
    throw unwrap(err, "initialize");
  }
  return {
    async listTools() {
      try {
        const result = await client.listTools(undefined, { timeout: timeoutMs });
        return result.tools.map((t) => t.name);
      } catch (err) {
        throw unwrap(err, "tools/list");
      }
    },
    async callTool(name, args) {
      let result: Awaited<ReturnType<typeof client.callTool>>;
      try {
        result = await client.callTool({ name, arguments: args }, undefined, {
          timeout: timeoutMs,
        });
      } catch (err) {
        throw unwrap(err, name);
      }
      const content = Array.isArray(result.content) ? result.content : [];
      const text = content
        .filter((c): c is { type: "text"; text: string } => c?.type === "text")
        .map((c) => c.text)
        .join("\n");
      if (result.isError) throw new ToolError(name, text || "(no message)");
      return text;
    },
    async close() {
      await client.close().catch(() => {});
    },
  };
}
