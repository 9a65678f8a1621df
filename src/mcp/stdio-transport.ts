/**
 * Newline-delimited JSON-RPC over injected streams. The SDK's StdioServerTransport reports a
 * malformed line only to `onerror` and sends nothing back, leaving the client waiting; this
 * transport answers it with a JSON-RPC error (-32700 parse error, -32600 invalid request, id
 * taken from the line when it has one) and keeps serving. At EOF it answers every request
 * already read before it closes (closing at once would drop them). Framing follows the SDK's
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
  /** Requests passed on and not yet answered, by JSON id (an id may repeat: counted). */
  readonly #pending = new Map<string, number>();
  /** Set once the input ended (or a drain began): close as soon as #pending is empty. */
  #draining = false;
  /** Serialized messages waiting for this turn's write, and who waits for them. */
  #queued: string[] = [];
  #written: Array<() => void> = [];

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
    void this.drain();
  };

  readonly #onError = (error: Error): void => {
    this.onerror?.(error);
  };

  async start(): Promise<void> {
    this.input.on("data", this.#onData);
    this.input.on("end", this.#onEnd);
    this.input.on("error", this.#onError);
  }

  /**
   * Stops reading and closes once every request already read has been answered: EOF on stdin
   * and a shutdown signal must not drop the answers (or the writes) of calls under way.
   */
  async drain(): Promise<void> {
    this.#draining = true;
    this.input.off("data", this.#onData);
    if (this.#pending.size === 0) await this.close();
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

  async send(message: JSONRPCMessage): Promise<void> {
    await this.#write(serializeMessage(message));
    if (("result" in message || "error" in message) && "id" in message)
      this.#settle(JSON.stringify(message.id));
  }

  /**
   * Queues `text` for the next write. The answers that complete in one turn of the event loop
   * (several calls in flight) leave in ONE write, after the turn's promise jobs have run: same
   * bytes in the same order, one syscall and one wake-up of the reader instead of one per
   * message (docs/decisions.md "stdio answers of one turn leave in one write").
   */
  #write(text: string): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#queued.push(text);
      this.#written.push(resolve);
      if (this.#queued.length === 1) process.nextTick(this.#flush);
    });
  }

  readonly #flush = (): void => {
    const text = this.#queued.length === 1 ? (this.#queued[0] as string) : this.#queued.join("");
    const written = this.#written;
    this.#queued = [];
    this.#written = [];
    const done = () => {
      for (const resolve of written) resolve();
    };
    if (this.output.write(text)) done();
    else this.output.once("drain", done);
  };

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
    const message = parsed.data;
    if ("method" in message && "id" in message) {
      const key = JSON.stringify(message.id);
      this.#pending.set(key, (this.#pending.get(key) ?? 0) + 1);
    } else if ("method" in message && message.method === "notifications/cancelled") {
      // The SDK sends no answer to a cancelled request: stop waiting for one.
      this.#settle(JSON.stringify(message.params?.requestId));
    }
    this.onmessage?.(message);
  }

  /** One answer for the request `key` was sent (or will never be); closes a finished drain. */
  #settle(key: string): void {
    const left = (this.#pending.get(key) ?? 0) - 1;
    if (left > 0) this.#pending.set(key, left);
    else this.#pending.delete(key);
    if (this.#draining && this.#pending.size === 0) void this.close();
  }

  #reply(id: string | number | null, code: number, message: string): void {
    this.onerror?.(new Error(message));
    // JSON-RPC 2.0 §5: id is null when it could not be determined.
    void this.#write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
  }
}

function idOf(raw: unknown): string | number | null {
  if (typeof raw !== "object" || raw === null) return null;
  const id = (raw as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
