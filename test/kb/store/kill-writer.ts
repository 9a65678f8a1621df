/**
 * Child process for the crash test: applies large writes of one concept in a loop until killed.
 * Version i has a body derived from i only, so the parent can check the file equals a version.
 * Usage: node --import tsx kill-writer.ts <kbRoot>
 */
import { openKb } from "../../../src/kb/store/store.js";
import { versionBody } from "./kill-versions.js";

const root = process.argv[2] as string;
const store = await openKb({ name: "kill", root, allowArtifactWrite: false, autocommit: false });
for (let i = 0; ; i++) {
  const plan = await store.planConceptWrite({
    id: "crash/target",
    frontmatter: { type: "note", version: i },
    body: versionBody(i),
    mode: "upsert",
  });
  await store.apply(plan);
  if (i === 0) process.stdout.write("started\n");
}
