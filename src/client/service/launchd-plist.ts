/**
 * The launchd agent plist, rendered from a ServiceSpec (pure): every text XML-escaped, the
 * environment as EnvironmentVariables, stdout and stderr to one log file (launchd has no
 * journal). `plistEnvironment` reads the variables back from a plist this module wrote.
 */
import { LAUNCHD_LABEL, type ServiceSpec } from "./spec.js";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

function xml(text: string): string {
  // XML 1.0 cannot carry most control characters, even escaped.
  const control = (c: string) => c < " " && c !== "\t" && c !== "\n" && c !== "\r";
  if (Array.from(text).some(control))
    throw new Error(`a plist cannot hold control characters: ${JSON.stringify(text)}`);
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

const string = (text: string) => `<string>${xml(text)}</string>`;

export function renderLaunchdPlist(spec: ServiceSpec, logPath: string): string {
  const args = [spec.node, spec.bin, ...spec.args].map((a) => `\t\t${string(a)}`).join("\n");
  const env = spec.env.map(([k, v]) => `\t\t<key>${xml(k)}</key>\n\t\t${string(v)}`).join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
\t<key>Label</key>
\t${string(LAUNCHD_LABEL)}
\t<key>ProgramArguments</key>
\t<array>
${args}
\t</array>
\t<key>EnvironmentVariables</key>
\t<dict>
${env}
\t</dict>
\t<key>RunAtLoad</key>
\t<true/>
\t<key>KeepAlive</key>
\t<dict>
\t\t<key>SuccessfulExit</key>
\t\t<false/>
\t</dict>
\t<key>StandardOutPath</key>
\t${string(logPath)}
\t<key>StandardErrorPath</key>
\t${string(logPath)}
</dict>
</plist>
`;
}

const unescapeXml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => {
    const found = Object.entries(ESCAPES).find(([, e]) => e === `&${name};`);
    return found ? found[0] : "";
  });

/** EnvironmentVariables of a plist written by renderLaunchdPlist, as name → value. */
export function plistEnvironment(plist: string): Record<string, string> {
  const block = /<key>EnvironmentVariables<\/key>\s*<dict>([\s\S]*?)<\/dict>/.exec(plist)?.[1];
  const env: Record<string, string> = {};
  if (block === undefined) return env;
  for (const m of block.matchAll(/<key>([^<]*)<\/key>\s*<string>([^<]*)<\/string>/g))
    env[unescapeXml(m[1] as string)] = unescapeXml(m[2] as string);
  return env;
}
