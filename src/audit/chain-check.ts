/**
 * The per-line checks of verification, as a state machine fed one line at a time. Pure apart
 * from signature checks, which run on the crypto thread pool in batches.
 */
import {
  type AuditEntry,
  type AuditVerifier,
  computeHash,
  GENESIS,
  isHashHex,
  isSigHex,
  SHAPE,
} from "./entry.js";
import {
  type GoAuditEntry,
  goD18Hash,
  goShapeError,
  goUtcTimestamp,
  goV2Hash,
  type LineFormat,
  lineFormat,
} from "./go-format.js";
import type { SignaturePool } from "./sig-pool.js";

/** A line of any format verify reads: ours, or the Go implementation's (go-format.ts). */
export type AnyAuditEntry = AuditEntry | GoAuditEntry;

/** Consecutive lines of one file in one format (`audit verify` says what it read). */
export interface FormatRange {
  file: string;
  firstLine: number;
  lastLine: number;
  format: LineFormat;
}

/** The chain facts every format shares. */
interface Chained {
  hash: string;
  prev_hash: string;
  sig?: string;
  /** Set for formats with attempt/completion pairs (ours, go-v2). */
  id?: string;
  phase?: string;
  request_id?: string;
}

export type BreakReason =
  | "hash mismatch"
  | "broken link"
  | "bad signature"
  | "missing signature"
  | "duplicate id"
  | "completion without attempt"
  | "truncated last line"
  | "malformed entry"
  | "checkpoint mismatch"
  | "bad checkpoint signature"
  | "missing checkpoint signature"
  | "unreadable file";

export interface VerifyBreak {
  file: string;
  /** 1-based line; 0 for a whole-file or checkpoint problem. */
  line: number;
  reason: BreakReason;
  detail?: string;
}

export interface ChainCounts {
  valid: number;
  signed: number;
  unsigned: number;
  /**
   * Unsigned Go lines after a signed line, checked with a public key: valid, as Go's verify reads
   * them (D18 "entries without sig remain valid"); the same in a line we wrote is a break.
   */
  goUnsignedAfterSigned: number;
  attempts: number;
  completions: number;
}

const MAX_BREAKS = 1000;
/** Signature checks to queue before awaiting them (keeps every pool thread busy). */
export const SIG_BATCH = 512;
/** Batches out at once: enough to keep every worker busy while the main thread reads on. */
const MAX_INFLIGHT = 8;

interface SigJob {
  hash: string;
  sig: string;
  file: string;
  line: number;
  countedValid: boolean;
}

export class ChainChecker {
  /** Expected prev_hash of the next line; null after a malformed line (link unknown). */
  prev: string | null = GENESIS;
  open = new Set<string>();
  readonly counts: ChainCounts = {
    valid: 0,
    signed: 0,
    unsigned: 0,
    goUnsignedAfterSigned: 0,
    attempts: 0,
    completions: 0,
  };
  readonly breaks: VerifyBreak[] = [];
  breaksLeftOff = 0;
  private readonly ids = new Set<string>();
  private sawSigned = false;
  private sigJobs: SigJob[] = [];
  /** What was read, in order: one range per run of lines of one format in one file. */
  readonly formats: FormatRange[] = [];
  /**
   * Set once a Go segment that retention deleted has been crossed: its attempts are unknown
   * (Go's checkpoints do not list them), so a Go completion without attempt is tolerated — as
   * Go's own verify does.
   */
  goAttemptsUnknown = false;

  /** Signature batches sent to the pool and not yet settled. */
  private inflight: Promise<void>[] = [];

  constructor(
    private readonly verifier: AuditVerifier | undefined,
    private readonly onEntry?: (entry: AnyAuditEntry) => void,
    private readonly pool?: SignaturePool,
  ) {}

  addBreak(b: VerifyBreak): void {
    if (this.breaks.length < MAX_BREAKS) this.breaks.push(b);
    else this.breaksLeftOff++;
  }

  /** Signature checks queued; the caller awaits flushSignatures() when this grows large. */
  get pendingSignatures(): number {
    return this.sigJobs.length;
  }

  /** Checks one line; returns its entry when it parsed (for segment summaries). */
  line(file: string, line: number, text: string, terminated: boolean): AnyAuditEntry | undefined {
    if (!terminated) {
      this.addBreak({ file, line, reason: "truncated last line" });
      return undefined;
    }
    let e: AuditEntry;
    try {
      e = JSON.parse(text) as AuditEntry;
    } catch {
      return this.malformed(file, line, "not JSON");
    }
    if (e === null || typeof e !== "object" || Array.isArray(e))
      return this.malformed(file, line, "not an object");
    const format = lineFormat(e.version);
    if (format === "go-v2" || format === "go-d18") return this.goLine(file, line, e, format);
    const shapeProblem = shapeError(e);
    if (shapeProblem) return this.malformed(file, line, shapeProblem);
    let computed: string;
    try {
      computed = computeHash(e as unknown as Record<string, unknown>);
    } catch {
      // JSON.parse turns 1e400 into Infinity, which has no canonical form.
      return this.malformed(file, line, "a number is out of range");
    }
    this.noteFormat(file, line, "cartographer-v1");
    this.accept(file, line, e, computed, true);
    this.onEntry?.(e);
    return e;
  }

  /** A line the Go implementation wrote (go-format.ts): its own hash rule, the same chain. */
  private goLine(
    file: string,
    line: number,
    raw: object,
    format: "go-v2" | "go-d18",
  ): GoAuditEntry | undefined {
    const problem = goShapeError(raw as Record<string, unknown>, format);
    if (problem) return this.malformed(file, line, `${format}: ${problem}`);
    const e = raw as GoAuditEntry;
    const utc = goUtcTimestamp(e.timestamp) as string;
    const computed = format === "go-v2" ? goV2Hash(e, utc) : goD18Hash(e, utc);
    this.noteFormat(file, line, format);
    const facts: Chained = { hash: e.hash, prev_hash: e.prev_hash };
    if (e.sig) facts.sig = e.sig;
    if (format === "go-v2") {
      facts.id = e.id as string;
      facts.phase = e.phase as string;
      facts.request_id = e.request_id ?? "";
    }
    this.accept(file, line, facts, computed, format === "go-v2", this.goAttemptsUnknown, true);
    this.onEntry?.(e);
    return e;
  }

  /** The checks every format shares: hash, link, id, attempt/completion pairing, signature. */
  private accept(
    file: string,
    line: number,
    e: Chained,
    computed: string,
    phased: boolean,
    tolerateUnpairedCompletion = false,
    goSignatureRule = false,
  ): void {
    const before = this.breaks.length + this.breaksLeftOff;
    if (computed !== e.hash) {
      this.addBreak({ file, line, reason: "hash mismatch" });
    }
    if (this.prev !== null && e.prev_hash !== this.prev) {
      this.addBreak({
        file,
        line,
        reason: "broken link",
        detail: `prev_hash does not match the previous entry's hash`,
      });
    }
    this.prev = e.hash;
    if (phased) {
      const id = e.id as string;
      const requestId = e.request_id as string;
      if (this.ids.has(id)) this.addBreak({ file, line, reason: "duplicate id", detail: id });
      this.ids.add(id);
      if (e.phase === "attempt") {
        this.counts.attempts++;
        this.open.add(requestId);
      } else {
        this.counts.completions++;
        if (!this.open.delete(requestId) && !tolerateUnpairedCompletion) {
          this.addBreak({ file, line, reason: "completion without attempt", detail: requestId });
        }
      }
    }
    const job = this.signature(e, file, line, goSignatureRule);
    const clean = this.breaks.length + this.breaksLeftOff === before;
    if (clean) this.counts.valid++;
    if (job) job.countedValid = clean;
  }

  private noteFormat(file: string, line: number, format: LineFormat): void {
    const last = this.formats[this.formats.length - 1];
    if (last && last.file === file && last.format === format) last.lastLine = line;
    else this.formats.push({ file, firstLine: line, lastLine: line, format });
  }

  private signature(
    e: Chained,
    file: string,
    line: number,
    goSignatureRule: boolean,
  ): SigJob | undefined {
    if (e.sig === undefined) {
      this.counts.unsigned++;
      // D18 keeps pre-signature entries valid; in a line we wrote, an unsigned entry after a
      // signed one is a strip. Go lines are read as Go's verify reads them: unsigned stays valid
      // (docs/decisions.md "Go audit lines follow Go's signature rule").
      if (this.verifier && this.sawSigned) {
        if (goSignatureRule) this.counts.goUnsignedAfterSigned++;
        else this.addBreak({ file, line, reason: "missing signature" });
      }
      return undefined;
    }
    this.sawSigned = true;
    this.counts.signed++;
    if (!this.verifier) return undefined;
    const job: SigJob = { hash: e.hash, sig: e.sig, file, line, countedValid: false };
    this.sigJobs.push(job);
    return job;
  }

  /**
   * Sends the queued signature checks off without waiting for them (reading goes on meanwhile),
   * unless MAX_INFLIGHT batches are already out: then waits for the oldest (bounds memory).
   */
  async dispatchSignatures(): Promise<void> {
    this.inflight.push(this.checkBatch(this.sigJobs));
    this.sigJobs = [];
    while (this.inflight.length > MAX_INFLIGHT) await this.inflight.shift();
  }

  /** Settles every signature check; a bad one un-counts its entry from valid and signed. */
  async flushSignatures(): Promise<void> {
    await this.dispatchSignatures();
    const all = this.inflight;
    this.inflight = [];
    await Promise.all(all);
  }

  private async checkBatch(jobs: SigJob[]): Promise<void> {
    const verifier = this.verifier;
    if (!verifier || jobs.length === 0) return;
    // Small remainders stay on libuv's pool: starting workers would cost more than they save.
    const results =
      this.pool && jobs.length >= SIG_BATCH
        ? await this.pool.verifyBatch(
            jobs.map((j) => j.hash),
            jobs.map((j) => j.sig),
          )
        : await Promise.all(jobs.map((j) => verifier.verifyAsync(j.hash, j.sig)));
    results.forEach((ok, i) => {
      const j = jobs[i];
      if (ok || !j) return;
      this.counts.signed--;
      if (j.countedValid) this.counts.valid--;
      this.addBreak({ file: j.file, line: j.line, reason: "bad signature" });
    });
  }

  private malformed(file: string, line: number, detail: string): undefined {
    this.addBreak({ file, line, reason: "malformed entry", detail });
    this.prev = null;
    return undefined;
  }
}

function shapeError(e: AuditEntry): string | undefined {
  if (e === null || typeof e !== "object" || Array.isArray(e)) return "not an object";
  if (e.version !== 1) return "unsupported version";
  if (!isHashHex(e.hash)) return SHAPE.hash;
  if (e.prev_hash !== GENESIS && !isHashHex(e.prev_hash))
    return "prev_hash is neither genesis nor 64 lowercase hex";
  if (typeof e.id !== "string" || e.id === "") return "missing id";
  if (e.phase !== "attempt" && e.phase !== "completion") return SHAPE.phase;
  if (typeof e.request_id !== "string") return "missing request_id";
  if (e.sig !== undefined && !isSigHex(e.sig)) return SHAPE.sig;
  return undefined;
}
