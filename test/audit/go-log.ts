/**
 * An independent generator of Go v0.5 audit logs, written from the Go project's documented rules
 * (decision D18 and D119, internal/audit) — it shares no code with src/audit/go-format.ts:
 *
 *   D18 (no version): hash = sha256 hex of `Timestamp|Tool|Args|AgentID|Outcome|PrevHash`
 *   v2  (version 2):  hash = sha256 hex of Go's json.Marshal of {version, id, timestamp, phase,
 *       request_id, principal_id, transport, kb, tool, external_tool (omitempty), read_only,
 *       resources (omitempty, keys sorted), outcome, duration_ms, commit_sha (omitempty), prev_hash};
 *       Go's encoder escapes <, > and & as \u003c, \u003e, \u0026
 *   sig = Ed25519 over the 64 ASCII hex bytes of hash; the checkpoint index sig covers
 *   json.Marshal({version, segments}).
 * Timestamps are given already in Go's UTC RFC3339Nano form.
 */
import { createHash, createPrivateKey, createPublicKey, sign } from "node:crypto";

/** A fixed Ed25519 seed for the Go logs (not the seed of the other audit tests). */
export const GO_SEED = "5eed".repeat(16);

const PKCS8_ED25519 = "302e020100300506032b657004220420";
const goKey = createPrivateKey({
  key: Buffer.from(PKCS8_ED25519 + GO_SEED, "hex"),
  format: "der",
  type: "pkcs8",
});
export const GO_PUBLIC_KEY = (
  createPublicKey(goKey).export({ format: "der", type: "spki" }) as Buffer
)
  .subarray(-32)
  .toString("hex");

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const sig = (bytes: string) => sign(null, Buffer.from(bytes, "utf8"), goKey).toString("hex");
/** Go's json.Marshal: JSON.stringify's form plus HTML escaping (ASCII-only test data otherwise). */
const goJson = (value: unknown) =>
  JSON.stringify(value)
    .replaceAll("<", "\\u003c")
    .replaceAll(">", "\\u003e")
    .replaceAll("&", "\\u0026");

export interface GoD18Input {
  timestamp: string;
  tool: string;
  args?: string;
  agent_id?: string;
  outcome: string;
}

export interface GoV2Input {
  id: string;
  timestamp: string;
  phase: "attempt" | "completion";
  request_id: string;
  principal_id: string;
  transport: string;
  kb: string;
  tool: string;
  read_only?: boolean;
  resources?: Record<string, string>;
  outcome?: string;
  duration_ms?: number;
  commit_sha?: string;
}

export type GoLine = Record<string, unknown> & { hash: string; prev_hash: string };

/** Chains entries like Go's appendLocked; `signFrom` = index of the first signed entry. */
export class GoChain {
  prev = "genesis";

  d18(e: GoD18Input, signed: boolean): GoLine {
    const hash = sha256(
      `${e.timestamp}|${e.tool}|${e.args ?? ""}|${e.agent_id ?? ""}|${e.outcome}|${this.prev}`,
    );
    // json.Marshal(Entry) with its omitempty fields.
    const line: GoLine = { timestamp: e.timestamp, tool: e.tool, prev_hash: this.prev, hash };
    if (e.args) line.args = e.args;
    if (e.agent_id) line.agent_id = e.agent_id;
    line.outcome = e.outcome;
    return this.finish(line, signed);
  }

  v2(e: GoV2Input, signed: boolean): GoLine {
    const canonical: Record<string, unknown> = {
      version: 2,
      id: e.id,
      timestamp: e.timestamp,
      phase: e.phase,
      request_id: e.request_id,
      principal_id: e.principal_id,
      transport: e.transport,
      kb: e.kb,
      tool: e.tool,
      read_only: e.read_only ?? false,
    };
    if (e.resources && Object.keys(e.resources).length > 0)
      canonical.resources = Object.fromEntries(
        Object.keys(e.resources)
          .sort()
          .map((k) => [k, e.resources?.[k]]),
      );
    canonical.outcome = e.outcome ?? "";
    canonical.duration_ms = e.duration_ms ?? 0;
    if (e.commit_sha) canonical.commit_sha = e.commit_sha;
    canonical.prev_hash = this.prev;
    const hash = sha256(goJson(canonical));
    const line: GoLine = { ...canonical, hash, prev_hash: this.prev };
    if (!e.read_only) delete line.read_only;
    if (!e.duration_ms) delete line.duration_ms;
    return this.finish(line, signed);
  }

  private finish(line: GoLine, signed: boolean): GoLine {
    if (signed) line.sig = sig(line.hash);
    this.prev = line.hash;
    return line;
  }
}

/** `n` attempt/completion pairs of Go v2 events, timestamps one second apart from `start`. */
export function goPairs(chain: GoChain, n: number, prefix: string, startSecond = 0): GoLine[] {
  const lines: GoLine[] = [];
  for (let i = 0; i < n; i++) {
    const t = `2026-01-01T10:${String(Math.floor((startSecond + i) / 60) % 60).padStart(2, "0")}:${String((startSecond + i) % 60).padStart(2, "0")}.25Z`;
    const base = {
      request_id: `${prefix}-${i}`,
      principal_id: "tok-ops",
      transport: "http",
      kb: "homelab",
      tool: "concept_write",
      resources: { id: "infra/dns", note: "a<b & c>d" },
    };
    lines.push(
      chain.v2({ ...base, id: `${prefix}a${i}`, timestamp: t, phase: "attempt" }, true),
      chain.v2(
        {
          ...base,
          id: `${prefix}c${i}`,
          timestamp: t.replace(".25Z", ".5Z"),
          phase: "completion",
          outcome: "success",
          duration_ms: 12,
          commit_sha: "0123456789abcdef0123456789abcdef01234567",
        },
        true,
      ),
    );
  }
  return lines;
}

export const jsonl = (lines: GoLine[]) => lines.map((l) => `${JSON.stringify(l)}\n`).join("");

export interface GoCheckpointInput {
  name: string;
  lines: GoLine[];
}

/** Go's checkpoints.json for these segments, signed with GO_SEED. */
export function goCheckpointIndex(segments: GoCheckpointInput[]): string {
  const cps = segments.map(({ name, lines }) => {
    const first = lines[0] as GoLine;
    const last = lines[lines.length - 1] as GoLine;
    return {
      name,
      start: first.timestamp,
      end: last.timestamp,
      count: lines.length,
      prev_hash: first.prev_hash,
      first_hash: first.hash,
      last_hash: last.hash,
      signing_required: true,
    };
  });
  const body = { version: 1, segments: cps };
  return JSON.stringify({ ...body, sig: sig(goJson(body)) });
}
