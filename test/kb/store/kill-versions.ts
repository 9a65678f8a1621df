/** The deterministic bodies written by kill-writer.ts (shared with the crash test). */
export function versionBody(i: number): string {
  const line = `version ${i} ${"x".repeat(200)}\n`;
  return line.repeat(4000); // ~800 KB: large enough that a write spans many syscalls
}
