/**
 * The official SDK client over stdio, for the side-by-side figures of section `one-pass`: it
 * spawns a server (the built binary or a bare SDK server), then times tools/call one at a time
 * (latency) and with N calls in flight on the one pipe (throughput). The client's own cost
 * (zod parsing of every answer) is the same for both servers it is compared across.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { cleanEnv } from "./stdio.js";

export interface StdioServer {
  client: Client;
  close(): Promise<void>;
}

/** Spawns `node <args>` and connects an SDK client to it (initialize included). */
export async function connectStdio(args: string[], cwd: string): Promise<StdioServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    cwd,
    env: cleanEnv() as Record<string, string>,
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport, { timeout: 120_000 });
  return { client, close: () => client.close() };
}

/** One tools/call; throws on a protocol error or an isError result. */
export async function callOk(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const r = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 120_000,
  })) as { isError?: boolean; content?: Array<{ text?: string }> };
  const text = r.content?.[0]?.text ?? "";
  if (r.isError) throw new Error(`${name}: ${text.slice(0, 300)}`);
  return text;
}

/** Resolves once a search answers without an `index` field (a fresh KB builds it at mount). */
export async function untilIndexed(client: Client): Promise<void> {
  for (;;) {
    const text = await callOk(client, "search", { query: "x" });
    if ((JSON.parse(text) as { index?: unknown }).index === undefined) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Latencies (ms) of `calls` sequential calls after `warmup` untimed ones. */
export async function sequential(
  client: Client,
  name: string,
  argsOf: (i: number) => Record<string, unknown>,
  calls: number,
  warmup: number,
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < warmup + calls; i++) {
    const start = performance.now();
    await callOk(client, name, argsOf(i));
    if (i >= warmup) out.push(performance.now() - start);
  }
  return out;
}

/** Calls per second with `inFlight` calls outstanding at all times on the one connection. */
export async function throughput(
  client: Client,
  name: string,
  argsOf: (i: number) => Record<string, unknown>,
  calls: number,
  inFlight: number,
): Promise<number> {
  let next = 0;
  const lane = async () => {
    while (next < calls) await callOk(client, name, argsOf(next++));
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: inFlight }, lane));
  return calls / ((performance.now() - start) / 1000);
}
