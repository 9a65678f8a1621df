/**
 * Progress for long CLI operations, on stderr: a redrawn bar on a TTY, plain lines (every 10%)
 * otherwise, so logs stay readable.
 */
export interface Progress {
  update: (done: number, total: number) => void;
  done: () => void;
}

export function progressReporter(
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  label: string,
): Progress {
  let lastDraw = 0;
  let lastDecile = -1;
  let drewBar = false;
  return {
    update(done, total) {
      if (total <= 0) return;
      if (stream.isTTY) {
        const now = Date.now();
        if (now - lastDraw < 100 && done < total) return;
        lastDraw = now;
        const width = 30;
        const filled = Math.round((done / total) * width);
        stream.write(
          `\r${label} [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done}/${total}`,
        );
        drewBar = true;
        return;
      }
      const decile = Math.floor((done / total) * 10);
      if (decile !== lastDecile) {
        lastDecile = decile;
        stream.write(`${label}: ${done}/${total}\n`);
      }
    },
    done() {
      if (drewBar) stream.write("\n");
    },
  };
}
