/**
 * Typed client errors. The three ways talking to a server can fail are distinct classes so a
 * caller (and the user) never mistakes one for another: the server was not reached at all, the
 * server answered something that is not the protocol we expect, or the server answered a
 * well-formed MCP tool error. ConfigError covers local files and arguments.
 */
export type ClientErrorKind =
  | "unreachable"
  | "protocol"
  | "tool"
  | "config"
  /** Provisioning: a file's bytes do not match its content hash, or the manifest's revision. */
  | "integrity"
  /** Provisioning: a signature by an unpinned key, a bad signature, or an unsigned downgrade. */
  | "untrusted";

export class ClientError extends Error {
  constructor(
    readonly kind: ClientErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "ClientError";
  }
}

/** Connection refused, DNS failure, reset or timeout: no HTTP answer at all. */
export class ServerUnreachableError extends ClientError {
  constructor(
    readonly url: string,
    cause: string,
  ) {
    super(
      "unreachable",
      `server unreachable at ${url} (${cause}); check that the server runs and server_url is right`,
    );
    this.name = "ServerUnreachableError";
  }
}

/** An HTTP error status, or a body that is not the JSON / MCP answer expected. */
export class ProtocolError extends ClientError {
  constructor(
    readonly url: string,
    readonly status: number | undefined,
    detail: string,
  ) {
    super(
      "protocol",
      `protocol error from ${url}${status === undefined ? "" : ` (HTTP ${status})`}: ${detail}`,
    );
    this.name = "ProtocolError";
  }
}

/**
 * The server's `artifact_manifest` answer is unusable (not JSON, a malformed field, an unsafe
 * path, over the client's limits): unlike a server that cannot answer, the run then writes
 * nothing at all — no entry, no block, no yaml (docs/decisions.md, Client).
 */
export class BadManifestError extends ClientError {
  constructor(message: string) {
    super("protocol", message);
    this.name = "BadManifestError";
  }
}

/** The server answered an MCP tool call with isError: true. */
export class ToolError extends ClientError {
  constructor(
    readonly tool: string,
    readonly text: string,
  ) {
    super("tool", `tool error from ${tool}: ${text}`);
    this.name = "ToolError";
  }
}

/** A local problem: unreadable or unparsable file, bad argument, missing .cartographer.yaml. */
export class ConfigError extends ClientError {
  constructor(message: string) {
    super("config", message);
    this.name = "ConfigError";
  }
}

const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_SOCKET",
]);

/**
 * Classifies an exception thrown by fetch itself (never by a response): a network-level
 * failure or an abort by our timeout is "unreachable"; anything else stays a protocol error.
 */
export function classifyFetchFailure(url: string, err: unknown): ClientError {
  if (err instanceof ClientError) return err;
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError" || e?.name === "AbortError") {
    return new ServerUnreachableError(url, "timed out");
  }
  const code = e?.cause?.code;
  if (code && UNREACHABLE_CODES.has(code)) return new ServerUnreachableError(url, code);
  if (e?.name === "TypeError" && /fetch failed/i.test(e.message ?? "")) {
    // A TLS failure (https against a plain-HTTP port) carries a multi-line OpenSSL message.
    const cause = (e.cause?.message ?? "fetch failed").replace(/\s+/g, " ").trim();
    return new ServerUnreachableError(url, cause.length > 160 ? `${cause.slice(0, 160)}…` : cause);
  }
  return new ProtocolError(url, undefined, e?.message ?? String(err));
}
