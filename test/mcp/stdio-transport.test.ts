/**
 * The stdio transport's write path (docs/decisions.md "stdio answers of one turn leave in one
 * write"): answers completed in one turn of the event loop leave in one write, byte for byte what
 * separate writes would have sent; a full pipe holds every waiting send until it drains.
 */
import { PassThrough, Writable } from "node:stream";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { LineTransport } from "../../src/mcp/stdio-transport.js";

/** A stdout that records each write; `full` makes write() report backpressure. */
function recorder(full = false) {
  const writes: string[] = [];
  const output = new Writable({
    highWaterMark: full ? 1 : 1 << 20,
    write(chunk: Buffer, _enc, done) {
      writes.push(chunk.toString("utf8"));
      // A full pipe: the chunk is taken after a while, then 'drain' follows.
      if (full) setTimeout(done, 20);
      else done();
    },
  });
  return { output, writes };
}

const answer = (id: number): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id,
  result: { content: [{ type: "text", text: `{"n":${id},"s":"é\\n"}` }] },
});

describe("LineTransport.send", () => {
  it("sends the answers of one turn in one write, the same bytes in the same order", async () => {
    const { output, writes } = recorder();
    const t = new LineTransport(new PassThrough(), output);
    await Promise.all([t.send(answer(1)), t.send(answer(2)), t.send(answer(3))]);
    expect(writes).toEqual([[1, 2, 3].map((i) => serializeMessage(answer(i))).join("")]);

    await t.send(answer(4)); // a later turn: its own write
    await t.send(answer(5));
    expect(writes.slice(1)).toEqual([serializeMessage(answer(4)), serializeMessage(answer(5))]);
  });

  it("on a full pipe every waiting send resolves only once the write drained", async () => {
    const { output, writes } = recorder(true);
    const t = new LineTransport(new PassThrough(), output);
    let sent = 0;
    const sends = [1, 2].map((i) => t.send(answer(i)).then(() => sent++));
    await new Promise((r) => setTimeout(r, 5));
    expect(writes).toHaveLength(1);
    expect(sent).toBe(0);
    await Promise.all(sends);
    expect(sent).toBe(2);
  });
});
