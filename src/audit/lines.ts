/** Splitting segment bytes into entries (used by checkpointing; the verifier streams its own). */
import type { SegmentLineFacts } from "./checkpoint.js";
import { isHashHex } from "./entry.js";

export { isHashHex };

export type SegmentFactsLike = Partial<Record<keyof SegmentLineFacts, unknown>>;

/** The chain facts of every complete, parseable line; malformed lines are skipped (verify reports them). */
export function segmentFacts(bytes: Buffer): SegmentLineFacts[] {
  const out: SegmentLineFacts[] = [];
  const text = bytes.toString("utf8");
  const lines = text.split("\n");
  // The element after the last newline is empty for a well-formed file, or a torn line.
  lines.pop();
  for (const line of lines) {
    let v: SegmentFactsLike;
    try {
      v = JSON.parse(line) as SegmentFactsLike;
    } catch {
      continue;
    }
    if (!isHashHex(v.hash) || typeof v.prev_hash !== "string") continue;
    out.push({
      hash: v.hash,
      prev_hash: v.prev_hash,
      timestamp: String(v.timestamp ?? ""),
      phase: String(v.phase ?? ""),
      request_id: String(v.request_id ?? ""),
    });
  }
  return out;
}
