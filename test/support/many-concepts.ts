/**
 * A generated KB of many concepts for the whole-KB pass tests: `count` concepts spread over two
 * maps, each with a body of about `bodyBytes` bytes and links to two neighbours (so lint finds a
 * graph, not orphans only). Deterministic; files only (commit them with seedKb).
 */
const MAP = "---\ntype: Map\nkind: map\n---\n";

export function manyConcepts(count: number, bodyBytes: number): Record<string, string> {
  const files: Record<string, string> = { "data/a/_map.md": MAP, "data/b/_map.md": MAP };
  const idOf = (i: number) => `${i % 2 === 0 ? "a" : "b"}/c${String(i).padStart(6, "0")}`;
  const filler = "The gateway forwards each request to the resolver and logs its latency. ";
  for (let i = 0; i < count; i++) {
    const links = `See [[${idOf((i + 1) % count)}]] and [[${idOf((i + 7) % count)}]].\n\n`;
    let body = `# Concept ${i}\n\n${links}`;
    while (body.length < bodyBytes) body += `${filler}(${i}) `;
    files[`data/${idOf(i)}.md`] = `---\ntype: note\ntitle: Concept ${i}\n---\n${body}\n`;
  }
  return files;
}
