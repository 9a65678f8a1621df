/**
 * Audit events (D18, D119). The surface builds an AuditRecordInput per phase; the sink adds
 * version, id, timestamp, prev_hash, hash and sig, and makes it durable.
 */
export type AuditPhase = "attempt" | "completion";

export type AuditOutcome =
  | "success"
  | "application_error"
  | "internal_error"
  | "forbidden"
  | "not_found_hidden"
  | "unknown_tool"
  | "invalid_arguments"
  | "audit_unavailable";

export interface AuditRecordInput {
  phase: AuditPhase;
  request_id: string;
  principal_id: string;
  transport: "stdio" | "http" | "in-memory" | "console";
  kb: string;
  tool: string;
  read_only: boolean;
  /** Only the id-like argument fields the registry allows for this tool. */
  resources: Record<string, unknown>;
  outcome?: AuditOutcome;
  duration_ms?: number;
  commit_sha?: string | null;
}

/**
 * What a `tools/call` gets when the audit attempt could not be made durable in `required` mode:
 * the sink's rejection and the call pipeline's tool error carry this one text.
 */
export const REQUIRED_MODE_REJECTION = "audit log unavailable: call rejected (required mode)";

export type AuditMode = "best_effort" | "required";

export interface AuditSink {
  readonly mode: AuditMode;
  /**
   * Appends one event durably (fsync, group commit). In `required` mode a failure rejects;
   * in `best_effort` mode it is counted and logged once per burst, and resolves.
   */
  append(record: AuditRecordInput): Promise<void>;
  /** False while the last append failed (drives /ready in required mode). */
  healthy(): boolean;
  /** Appends dropped in best_effort mode. */
  dropped(): number;
  close(): Promise<void>;
}
