/**
 * The recent end of the live audit log, kept in memory and read incrementally: at most
 * WINDOW_BYTES at the first look, then only the bytes appended since (docs/decisions.md "Console:
 * the audit window"). Attempts and completions are paired by request id into calls, newest last;
 * a completion's commit sha links a commit to its call (the pipeline's step 8 records it), which
 * is how the feed names a commit's principal. Lines of other formats (the Go implementation's)
 * are skipped: verify reads those.
 */
import { open, stat } from "node:fs/promises";
import type { AuditOutcome } from "../../audit/types.js";

/** Bytes of the log's end read when the window opens (or the log was rotated). */
export const WINDOW_BYTES = 8 * 1024 * 1024;
/** Calls kept; older ones fall out of the window. */
export const MAX_CALLS = 20_000;

/** One tool call as the audit recorded it. */
export interface AuditCall {
  request_id: string;
  kb: string;
  principal_id: string;
  transport: string;
  tool: string;
  read_only: boolean;
  resources: Record<string, unknown>;
  /** The attempt's time, else the completion's. */
  timestamp: string;
  /** Absent while the call has no completion (in flight, or interrupted). */
  outcome?: AuditOutcome;
  duration_ms?: number;
  commit_sha?: string | null;
  /** False when only the completion is in the window (its attempt fell out of it). */
  attempted: boolean;
  /** Order in the window (grows with the log): the cursor of the audit page. */
  seq: number;
}

interface LineFields {
  phase?: unknown;
  request_id?: unknown;
  kb?: unknown;
  principal_id?: unknown;
  transport?: unknown;
  tool?: unknown;
  read_only?: unknown;
  resources?: unknown;
  timestamp?: unknown;
  outcome?: unknown;
  duration_ms?: unknown;
  commit_sha?: unknown;
}

/** One line of our format (attempt or completion), or null for anything else (pure). */
function parseLine(line: string): (LineFields & { request_id: string; kb: string }) | null {
  let v: LineFields;
  try {
    v = JSON.parse(line) as LineFields;
  } catch {
    return null;
  }
  if (typeof v.request_id !== "string" || typeof v.kb !== "string") return null;
  if (v.phase !== "attempt" && v.phase !== "completion") return null;
  return v as LineFields & { request_id: string; kb: string };
}

function newCall(v: LineFields & { request_id: string; kb: string }, seq: number): AuditCall {
  return {
    request_id: v.request_id,
    kb: v.kb,
    principal_id: String(v.principal_id ?? ""),
    transport: String(v.transport ?? ""),
    tool: String(v.tool ?? ""),
    read_only: v.read_only === true,
    resources:
      typeof v.resources === "object" && v.resources !== null
        ? (v.resources as Record<string, unknown>)
        : {},
    timestamp: String(v.timestamp ?? ""),
    attempted: v.phase === "attempt",
    seq,
  };
}

/** Records a completion's outcome on `call`; its commit sha, if any. */
function complete(call: AuditCall, v: LineFields): string | null {
  call.outcome = v.outcome as AuditOutcome;
  if (typeof v.duration_ms === "number") call.duration_ms = v.duration_ms;
  const sha = typeof v.commit_sha === "string" ? v.commit_sha : null;
  call.commit_sha = sha;
  return sha;
}

/**
 * The call a completion line records, read alone (its attempt is not looked up: a completion
 * carries the principal, tool, transport and resources too); null for any other line. Pure.
 */
export function completionCall(line: string): AuditCall | null {
  const v = parseLine(line);
  if (v === null || v.phase !== "completion") return null;
  const call = newCall(v, 0);
  complete(call, v);
  return call;
}

/** Folds parsed lines into calls (pure; exported for tests). */
export class CallFolder {
  readonly calls: AuditCall[] = [];
  private readonly byRequest = new Map<string, AuditCall>();
  private readonly bySha = new Map<string, AuditCall>();
  private seq = 0;

  add(line: string): void {
    const v = parseLine(line);
    if (v === null) return;
    let call = this.byRequest.get(v.request_id);
    if (!call) {
      call = newCall(v, ++this.seq);
      this.byRequest.set(v.request_id, call);
      this.calls.push(call);
    }
    if (v.phase === "completion") {
      const sha = complete(call, v);
      if (sha) this.bySha.set(sha, call);
    }
    if (this.calls.length > MAX_CALLS) this.dropOldest(this.calls.length - MAX_CALLS);
  }

  /** The call whose completion recorded `sha` (a full sha), if still in the window. */
  commitCall(sha: string): AuditCall | undefined {
    return this.bySha.get(sha);
  }

  requestCall(id: string): AuditCall | undefined {
    return this.byRequest.get(id);
  }

  private dropOldest(n: number): void {
    for (const c of this.calls.splice(0, n)) {
      this.byRequest.delete(c.request_id);
      if (c.commit_sha) this.bySha.delete(c.commit_sha);
    }
  }
}

/** The window over one live log; `refresh` reads what was appended since the last look. */
export class AuditWindow {
  private folder = new CallFolder();
  private offset = 0;
  private ino = -1;
  private reading: Promise<void> = Promise.resolve();

  constructor(readonly logPath: string) {}

  /** Catches up with the log (serialized); a missing log is an empty window. */
  refresh(): Promise<AuditWindow> {
    this.reading = this.reading.then(() => this.catchUp()).catch(() => {});
    return this.reading.then(() => this);
  }

  get calls(): readonly AuditCall[] {
    return this.folder.calls;
  }

  callOfCommit(sha: string): AuditCall | undefined {
    return this.folder.commitCall(sha);
  }

  call(requestId: string): AuditCall | undefined {
    return this.folder.requestCall(requestId);
  }

  private async catchUp(): Promise<void> {
    let st: Awaited<ReturnType<typeof stat>>;
    try {
      st = await stat(this.logPath);
    } catch {
      this.reset(-1);
      return;
    }
    // Rotated (a new file) or cut shorter: start over from the new file's end window.
    if (st.ino !== this.ino || st.size < this.offset) this.reset(st.ino);
    if (st.size === this.offset) return;
    const from = this.offset === 0 ? Math.max(0, st.size - WINDOW_BYTES) : this.offset;
    const fh = await open(this.logPath, "r");
    try {
      const buf = Buffer.alloc(st.size - from);
      const { bytesRead } = await fh.read(buf, 0, buf.length, from);
      const data = buf.subarray(0, bytesRead);
      const last = data.lastIndexOf(0x0a);
      if (last < 0) return;
      // A window opened mid-file starts at the first whole line.
      const first = from > 0 && this.offset === 0 ? data.indexOf(0x0a) + 1 : 0;
      const text = data.toString("utf8", first, last);
      for (const line of text.split("\n")) if (line) this.folder.add(line);
      this.offset = from + last + 1;
    } finally {
      await fh.close();
    }
  }

  private reset(ino: number): void {
    this.folder = new CallFolder();
    this.offset = 0;
    this.ino = ino;
  }
}

const windows = new Map<string, AuditWindow>();

/** The process's one window over `logPath`, caught up with the log. */
export function auditWindow(logPath: string): Promise<AuditWindow> {
  let w = windows.get(logPath);
  if (!w) {
    w = new AuditWindow(logPath);
    windows.set(logPath, w);
  }
  return w.refresh();
}
