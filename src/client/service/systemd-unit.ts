/**
 * The systemd user unit, rendered from a ServiceSpec (pure), and the listen address read back
 * from one. Quoting follows systemd.service(5) and systemd.exec(5): each word in double
 * quotes with `\` and `"` escaped; `%` doubled (specifiers) everywhere; `$` doubled in Exec
 * lines only (Environment= does not expand variables). A newline cannot be quoted: refused.
 */
import type { ServiceSpec } from "./spec.js";

function quoted(word: string, exec: boolean): string {
  if (["\n", "\r", "\0"].some((c) => word.includes(c)))
    throw new Error(`a systemd unit cannot hold a newline or NUL: ${JSON.stringify(word)}`);
  let text = word.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/%/g, "%%");
  if (exec) text = text.replace(/\$/g, "$$$$");
  return `"${text}"`;
}

export function renderSystemdUnit(spec: ServiceSpec): string {
  const exec = [spec.node, spec.bin, ...spec.args].map((w) => quoted(w, true)).join(" ");
  const env = spec.env.map(([k, v]) => quoted(`${k}=${v}`, false)).join(" ");
  return `# Written by "cartographer service install"; it rewrites this file on every install.
[Unit]
Description=Cartographer MCP server

[Service]
Type=simple
ExecStart=${exec}
Environment=${env}
WorkingDirectory=~
Restart=on-failure
RestartSec=2

[Install]
WantedBy=default.target
`;
}

/** The words of a quoted systemd value (the inverse of `quoted` for Environment=). */
export function unquoteWords(value: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (const m of value.matchAll(re)) {
    const raw = m[1] ?? m[2] ?? "";
    words.push(raw.replace(/\\(.)/g, "$1").replace(/%%/g, "%"));
  }
  return words;
}

/** The unit's Environment= settings as name → value. */
export function unitEnvironment(unit: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of unit.split("\n")) {
    if (!line.startsWith("Environment=")) continue;
    for (const word of unquoteWords(line.slice("Environment=".length))) {
      const eq = word.indexOf("=");
      if (eq > 0) env[word.slice(0, eq)] = word.slice(eq + 1);
    }
  }
  return env;
}
