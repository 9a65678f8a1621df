/**
 * The request value the console is handed by src/http (console-route.ts) and the reply value it
 * gives back: no socket, no HTTP-layer types (the console sits below http, design.md §3).
 */

export type ConsoleBody =
  | { ok: true; bytes: Buffer }
  | { ok: false; reason: "too_large" | "aborted" };

export interface ConsoleInput {
  readonly method: string;
  /** The raw path (still percent-encoded). */
  readonly pathname: string;
  readonly query: URLSearchParams;
  /** A request header (name lower-case), repeats joined. */
  header(name: string): string | undefined;
  readBody(maxBytes: number): Promise<ConsoleBody>;
  /** `scheme://host[:port]` the browser sees: the public URL, else from Host (same-origin checks). */
  readonly origin: string;
  /** True when the browser reaches the console over https (cookies get `Secure`). */
  readonly secure: boolean;
  /** Audiences an OAuth access token may carry here (the MCP resource): sign-in verifies against them. */
  readonly audiences: readonly string[];
  /** True when the peer is a loopback address (auth off serves loopback peers only). */
  readonly peerLoopback: boolean;
}

export interface ConsoleOutput {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Buffer;
}
