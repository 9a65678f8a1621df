/**
 * Child process of interrupted-build.test.ts: starts the first build of the KB at argv[2] and
 * kills itself (SIGKILL, no cleanup) once `argv[3]` concepts are written, after committing what
 * the build holds so far, so the file keeps part of the rows without its secondary indexes.
 */
import { openKb } from "../../../src/kb/store/store.js";
import { buildKbIndex, openKbIndexFile } from "../../../src/search/kb-index.js";
import { testKbSettings } from "../../support/kb.js";

const [root, after] = [process.argv[2] as string, Number(process.argv[3])];
const store = await openKb(testKbSettings(root, { name: "kb" }));
const index = openKbIndexFile(store);
await buildKbIndex(store, index, {
  onProgress: (done) => {
    if (done < after) return;
    // A commit of the held transaction, as every BULK_COMMIT_ROWS rows of a large KB.
    index.database().exec("COMMIT; BEGIN");
    process.kill(process.pid, "SIGKILL");
  },
});
