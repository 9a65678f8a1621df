/**
 * Finding where a log's good bytes end: the sink resumes its chain from the last complete
 * line and cuts a torn one (a write interrupted by a crash).
 */

import type { AuditFile } from "./io.js";
import { isHashHex, type SegmentFactsLike } from "./lines.js";

export interface TailState {
  /** Bytes up to and including the last newline. */
  goodSize: number;
  /** hash of the last complete line, or undefined for an empty log. */
  lastHash?: string;
}

const NEWLINE = 0x0a;

/** The log's last complete line is not an entry: resuming would chain onto garbage. */
export class CorruptAuditLogError extends Error {
  override name = "CorruptAuditLogError";
}

/** Reads backwards from the end until the last complete line is in view. */
export async function readTail(file: AuditFile, size: number, logPath: string): Promise<TailState> {
  if (size === 0) return { goodSize: 0 };
  let window = Math.min(size, 64 * 1024);
  for (;;) {
    const start = size - window;
    const buf = await file.read(window, start);
    const lastNl = buf.lastIndexOf(NEWLINE);
    if (lastNl < 0) {
      if (start === 0) return { goodSize: 0 };
      window = Math.min(size, window * 2);
      continue;
    }
    const goodSize = start + lastNl + 1;
    const prevNl = lastNl === 0 ? -1 : buf.lastIndexOf(NEWLINE, lastNl - 1);
    if (prevNl < 0 && start > 0) {
      window = Math.min(size, window * 2);
      continue;
    }
    const line = buf.subarray(prevNl + 1, lastNl).toString("utf8");
    return { goodSize, lastHash: lastLineHash(line, logPath) };
  }
}

function lastLineHash(line: string, logPath: string): string {
  let parsed: SegmentFactsLike | undefined;
  try {
    parsed = JSON.parse(line) as SegmentFactsLike;
  } catch {
    parsed = undefined;
  }
  if (!parsed || !isHashHex(parsed.hash)) {
    throw new CorruptAuditLogError(
      `audit log ${logPath} ends with a line that is not a valid audit entry; run \`cartographer audit verify --log ${logPath}\` and move the file aside to start a new chain`,
    );
  }
  return parsed.hash;
}
