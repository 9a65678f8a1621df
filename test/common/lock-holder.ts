/**
 * Child process for the process-lock tests: takes the lock at argv[2], prints `held` (or
 * `refused: <message>`), then holds it until SIGTERM, which releases it and exits 0.
 * Usage: node --import tsx lock-holder.ts <lockFile> <purpose>
 */

import { acquireProcessLock } from "../../src/common/process-lock.js";
import { silentLogger } from "../../src/logger.js";

const [file, purpose = "test"] = process.argv.slice(2) as [string, string?];
try {
  const lock = await acquireProcessLock(file, {
    label: "KB 'child'",
    purpose,
    displayPath: "kb.lock",
    logger: silentLogger,
  });
  const keepAlive = setInterval(() => {}, 60_000);
  process.once("SIGTERM", () => {
    clearInterval(keepAlive);
    void lock.release().then(() => process.exit(0));
  });
  process.stdout.write("held\n");
} catch (err) {
  process.stdout.write(`refused: ${(err as Error).message}\n`);
  process.exit(3);
}
