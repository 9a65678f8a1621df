/** Streams a file's lines without loading it whole (a live log may be large). */
import * as fs from "node:fs/promises";

export interface FileLine {
  /** 1-based. */
  line: number;
  text: string;
  /** False only for a last line with no trailing newline. */
  terminated: boolean;
}

const CHUNK = 1 << 20;

/** Yields the lines of each chunk read as one batch (a per-line await would dominate verify time). */
export async function* readLineBatches(file: string): AsyncGenerator<FileLine[]> {
  const fh = await fs.open(file, "r");
  try {
    let carry: Buffer = Buffer.alloc(0);
    let line = 0;
    const buf = Buffer.alloc(CHUNK);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, CHUNK, null);
      if (bytesRead === 0) break;
      const data =
        carry.length > 0
          ? Buffer.concat([carry, buf.subarray(0, bytesRead)])
          : buf.subarray(0, bytesRead);
      let start = 0;
      const batch: FileLine[] = [];
      for (let nl = data.indexOf(0x0a, start); nl >= 0; nl = data.indexOf(0x0a, start)) {
        line++;
        batch.push({ line, text: data.toString("utf8", start, nl), terminated: true });
        start = nl + 1;
      }
      if (batch.length > 0) yield batch;
      // Copy: `buf` is reused by the next read.
      carry = Buffer.from(data.subarray(start));
    }
    if (carry.length > 0)
      yield [{ line: line + 1, text: carry.toString("utf8"), terminated: false }];
  } finally {
    await fh.close();
  }
}
