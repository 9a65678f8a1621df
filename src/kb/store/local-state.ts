/** `.cartographer/` local state, kept out of git through `.git/info/exclude`. */
import { appendFile, mkdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { TEMP_MARKER } from "../../common/atomic-write.js";

const EXCLUDES = ["/.cartographer/", `.*${TEMP_MARKER}*`];

/** Creates `.cartographer/` and lists it (and crash-leftover temp files) in `.git/info/exclude`. */
export async function ensureLocalState(root: string): Promise<void> {
  await mkdir(join(root, ".cartographer"), { recursive: true });
  const gitDir = join(root, ".git");
  try {
    if (!(await stat(gitDir)).isDirectory()) return;
  } catch {
    return; // Not a git repository (yet): nothing to exclude from.
  }
  const file = join(gitDir, "info", "exclude");
  await mkdir(join(gitDir, "info"), { recursive: true });
  let current = "";
  try {
    current = await readFile(file, "utf8");
  } catch {
    current = "";
  }
  const lines = current.split("\n").map((l) => l.trim());
  const missing = EXCLUDES.filter((e) => !lines.includes(e));
  if (missing.length === 0) return;
  const sep = current === "" || current.endsWith("\n") ? "" : "\n";
  await appendFile(file, `${sep}${missing.join("\n")}\n`);
}
