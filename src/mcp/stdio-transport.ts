/**
 * Newline-delimited JSON-RPC over injected streams. The SDK's StdioServerTransport reports a
 * malformed line only to `onerror` and sends nothing back, leaving the client waiting; this
 * transport answers it with a JSON-RPC error (-32700 parse error, -32600 invalid request, id
 * taken from the line when it has one) and keeps serving. Framing follows the SDK's
 * ReadBuffer/serializeMessage exactly; stdout carries protocol messages only.
 */
import type { Readable, Writable } from "node:stream";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";

/** Largest line accepted before the buffer is dropped with an error (as the SDK: 10 MiB). */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #buffer: Buffer = Buffer.alloc(0);
  #closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
  ) {}

  readonly #onData = (chunk: Buffer | string): void => {
    this.#buffer = Buffer.concat([
      this.#buffer,
      typeof chunk === "string" ? Buffer.from(chunk) : chunk,
    ]);
    let newline = this.#buffer.indexOf(0x0a);
    while (newline !== -1) {
      const line = this.#buffer.toString("utf8", 0, newline).replace(/\r$/, "");
      this.#buffer = this.#buffer.subarray(newline + 1);
      if (line.trim() !== "") this.#handleLine(line);
      newline = this.#buffer.indexOf(0x0a);
    }
    if (this.#buffer.length > MAX_LINE_BYTES) {
      this.#buffer = Buffer.alloc(0);
      this.#reply(null, -32600, `Invalid Request: line longer than ${MAX_LINE_BYTES} bytes`);
    }
  };

  readonly #onEnd = (): void => {
    void this.close();
  };

  readonly #onError = (error: Error): void => {
    this.onerror?.(error);
  };

  async start(): Promise<void> {
    this.input.on("data", this.#onData);
    this.input.on("end", this.#onEnd);
    this.input.on("error", this.#onError);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.input.off("data", this.#onData);
    this.input.off("end", this.#onEnd);
    this.input.off("error", this.#onError);
    this.#buffer = Buffer.alloc(0);
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(serializeMessage(message))) resolve();
      else this.output.once("drain", resolve);
    });
  }

  #handleLine(line: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      this.#reply(null, -32700, "Parse error: the line is not valid JSON");
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.#reply(idOf(raw), -32600, "Invalid Request: not a JSON-RPC 2.0 message");
      return;
    }
    this.onmessage?.(parsed.data);
  }

  #reply(id: string | number | null, code: number, message: string): void {
    this.onerror?.(new Error(message));
    // JSON-RPC 2.0 §5: id is null when it could not be determined.
    this.output.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
  }
}

function idOf(raw: unknown): string | number | null {
  if (typeof raw !== "object" || raw === null) return null;
  const id = (raw as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
