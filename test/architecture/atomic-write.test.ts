/**
 * One owner per invariant: whole-file writes go through src/common/atomic-write.ts. A new
 * rename-based or direct whole-file write anywhere else in src/ fails here; each exception
 * below names why it is not a second atomic-write implementation.
 */
import { describe, expect, it } from "vitest";
import { loadSources, parseModule, type SourceModule } from "./sources.js";

const RAW_WRITE = /\b(rename|renameSync|writeFile|writeFileSync|copyFile|copyFileSync)\s*\(/g;
const FS_MODULE = /^(node:)?fs(\/promises)?$/;
const FS_NAMED_IMPORT = /import\s*\{([^}]*)\}\s*from\s*["'](?:node:)?fs(?:\/promises)?["']/g;

/** Names imported from fs by `import { a, b as c } from "node:fs…"` (local names). */
function fsNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(FS_NAMED_IMPORT))
    for (const part of (m[1] as string).split(","))
      names.add(
        part
          .trim()
          .split(/\s+as\s+/)
          .pop() as string,
      );
  return names;
}

/** file → why it may call a raw rename/writeFile. */
const ALLOWED: Record<string, string> = {
  "common/atomic-write.ts": "the owner: temp file, fsync, rename, directory fsync",
  "kb/store/apply.ts": "two-phase whole-set commit over atomic-write's temp files, with rollback",
  "kb/store/init.ts": "builds a new KB in a hidden folder, then renames the folder into place",
  "audit/io.ts": "the AuditIo seam's rename, used to rotate a closed segment into the archive",
  "kb/secrets/sops.ts":
    "writes a scratch copy for `sops set` to edit and removes it; the result goes through a plan",
  "search/open-db.ts": "moves a damaged index and its side files aside (a move, not a write)",
  "common/process-lock.ts":
    "lock-file protocol: link() creates exclusively, rename() moves a stale lock aside",
};

/**
 * `file:line call` for each fs rename/write outside the allow-list: a member call (`fs.rename(`)
 * in a module that imports fs, or a bare call of a name imported from fs. A function of our own
 * that happens to be called `rename` (argument aliases) is not a file operation.
 */
function rawWrites(modules: SourceModule[]): string[] {
  const found: string[] = [];
  for (const m of modules) {
    if (m.file in ALLOWED) continue;
    if (!m.imports.some((i) => i.target === null && FS_MODULE.test(i.specifier))) continue;
    const named = fsNames(m.text);
    for (const match of m.text.matchAll(RAW_WRITE)) {
      const member = m.text[(match.index as number) - 1] === ".";
      if (!member && !named.has(match[1] as string)) continue;
      const line = m.text.slice(0, match.index).split("\n").length;
      found.push(`${m.file}:${line} ${match[1]}(`);
    }
  }
  return found;
}

describe("atomic writes have one owner", () => {
  it("no module outside the allow-list renames or writes a whole file itself", () => {
    expect(rawWrites(loadSources())).toEqual([]);
  });

  it("the rule catches a hand-rolled temp + rename write (and ignores comments)", () => {
    const copy = parseModule(
      "client/other.ts",
      [
        "import { promises as fs } from 'node:fs';",
        "// fs.rename(a, b) in a comment is prose",
        "export async function save(f: string, t: string) {",
        "  await fs.writeFile(f + '.tmp', t);",
        "  await fs.rename(f + '.tmp', f);",
        "}",
      ].join("\n"),
    );
    expect(rawWrites([copy])).toEqual([
      "client/other.ts:4 writeFile(",
      "client/other.ts:5 rename(",
    ]);
  });

  it("every allow-listed file exists and still needs its exception", () => {
    const byFile = new Map(loadSources().map((m) => [m.file, m]));
    for (const file of Object.keys(ALLOWED)) {
      const m = byFile.get(file);
      expect(m, `${file} is allow-listed but missing`).toBeDefined();
      expect(
        [...(m as SourceModule).text.matchAll(RAW_WRITE)].length,
        `${file} no longer writes raw: drop it from the allow-list`,
      ).toBeGreaterThan(0);
    }
  });
});
