/** Child process for the SIGKILL test: appends attempt/completion pairs from 16 callers forever. */
import { openAuditSink } from "../../src/audit/sink.js";
import { record } from "./helpers.js";

const log = process.argv[2] as string;
const sink = await openAuditSink({ path: log, mode: "required", maxSegmentBytes: 64 * 1024 });
async function caller(n: number): Promise<void> {
  for (let i = 0; ; i++) {
    const id = `w${n}-${i}`;
    await sink.append(record(id));
    await sink.append(record(id, "completion"));
  }
}
await Promise.all(Array.from({ length: 16 }, (_, n) => caller(n)));
