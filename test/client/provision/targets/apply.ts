/**
 * A minimal stand-in for the engine, for these tests only: writes a RenderResult's files (with
 * their executable bit) and applies its sections to whatever text the shared files hold. It
 * checks the one contract the targets promise the engine: everything lies inside a root.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, sep } from "node:path";
import { expect } from "vitest";
import type { RenderResult } from "../../../../src/client/provision/types.js";

export function inside(file: string, roots: string[]): boolean {
  return roots.some((r) => file === r || file.startsWith(r + sep));
}

export function applyResult(result: RenderResult): void {
  for (const f of result.files) {
    expect(inside(f.path, result.roots), `${f.path} inside a root`).toBe(true);
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, f.bytes);
    chmodSync(f.path, f.executable ? 0o755 : 0o644);
  }
  for (const s of result.sections) {
    expect(inside(s.file, result.roots), `${s.file} inside a root`).toBe(true);
    const before = existsSync(s.file) ? readFileSync(s.file, "utf8") : null;
    if (s.desired === null && before === null) continue;
    const after = s.write(before, s.desired);
    mkdirSync(dirname(s.file), { recursive: true });
    writeFileSync(s.file, after);
  }
}

/** Checks the section laws on `userText`: round trip, idempotence, removal of exactly ours. */
export function checkSectionLaws(
  result: RenderResult,
  userText: (file: string) => string | null,
): void {
  for (const s of result.sections) {
    const t = userText(s.file);
    const withOurs = s.write(t, s.desired);
    expect(s.read(withOurs), `${s.id} read(write(t, d)) === d`).toBe(s.desired);
    expect(s.write(withOurs, s.desired), `${s.id} idempotent`).toBe(withOurs);
    const removed = s.write(withOurs, null);
    expect(s.read(removed), `${s.id} removed`).toBeNull();
    if (t !== null) expect(removed, `${s.id} write(write(t,d),null) gives t back`).toBe(t);
  }
}
