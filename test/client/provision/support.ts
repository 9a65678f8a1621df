/**
 * Shared pieces of the engine suites: a tiny but real provision target (pure renderer: skills
 * under `<dir>/.testtool/skills/<name>/`, and one managed JSON section listing them in
 * `<dir>/.testtool/settings.json`), artifacts built with the real content hash, and a CommandIo
 * that records output.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { ConfigError } from "../../../src/client/errors.js";
import type { CommandIo } from "../../../src/client/lib/io.js";
import type { Prepared } from "../../../src/client/provision/provision.js";
import type {
  Artifact,
  ManagedSection,
  ProvisionTarget,
} from "../../../src/client/provision/types.js";
import { artifactContentHash } from "../../../src/common/provisioning/artifact-sign.js";

export function skill(
  kb: string,
  name: string,
  files: Record<string, string>,
  opts: { exec?: string[]; source?: string } = {},
): Artifact {
  const list = Object.entries(files)
    .map(([p, text]) => ({
      path: p,
      executable: opts.exec?.includes(p) ?? false,
      bytes: Buffer.from(text),
    }))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  return {
    kb,
    kind: "skill",
    name,
    source: opts.source ?? `kb:${kb}`,
    version: "1",
    contentHash: artifactContentHash(
      list.map((f) => ({ path: f.path, executable: f.executable, content: f.bytes })),
    ),
    files: list,
    signature: null,
  };
}

function settingsSection(file: string, names: string[] | null): ManagedSection {
  const parse = (text: string | null): Record<string, unknown> => {
    if (text === null) return {};
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new ConfigError(`${file} is not JSON; nothing was written`);
    }
  };
  return {
    file,
    id: "skills-list",
    desired: names === null ? null : JSON.stringify(names),
    origins: [],
    read: (text) => {
      const v = parse(text).ours;
      return v === undefined ? null : JSON.stringify(v);
    },
    write: (text, section) => {
      const obj = parse(text);
      if (section === null) delete obj.ours;
      else obj.ours = JSON.parse(section);
      return `${JSON.stringify(obj, null, 2)}\n`;
    },
  };
}

/** A pure target: what a real provider target does, in miniature. */
export const testTarget: ProvisionTarget = {
  id: "claude",
  render(artifacts, ctx) {
    const base = ctx.scope === "user" ? ctx.home : ctx.projectDir;
    const root = path.join(base, ".testtool");
    const skills = artifacts.filter((a) => a.kind === "skill");
    return {
      roots: [root],
      files: skills.flatMap((a) =>
        a.files.map((f) => ({
          path: path.join(root, "skills", a.name, f.path),
          bytes: f.bytes,
          executable: f.executable,
          origin: `${a.kb}/${a.kind}/${a.name}`,
        })),
      ),
      sections: [
        settingsSection(
          path.join(root, "settings.json"),
          skills.length > 0 ? skills.map((s) => s.name) : null,
        ),
      ],
      notes: [],
    };
  },
};

export function prepared(artifacts: Artifact[], kbs: string[] = ["a"]): Prepared {
  return {
    serverKbs: kbs,
    manifests: new Map(
      kbs.map((kb) => [
        kb,
        {
          kb,
          revision: `${kb}-rev-${artifacts.map((a) => a.contentHash).join("")}`.slice(0, 64),
          signingKey: null,
          artifacts: artifacts.filter((a) => a.kb === kb),
          skipped: [],
        },
      ]),
    ),
    decision: { accepted: artifacts, held: [] },
  };
}

export interface RecordingIo extends CommandIo {
  out(): string;
  err(): string;
}

export function recordingIo(home: string, cwd = home): RecordingIo {
  let out = "";
  let err = "";
  return {
    home,
    cwd,
    env: {},
    stdout: { write: (c: string) => (out += c) },
    stderr: { write: (c: string) => (err += c) },
    out: () => out,
    err: () => err,
  };
}

/** path → { sha of bytes, mtimeMs, mode } for every entry under `dir` (lstat, no follow). */
export async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string) => {
    const entries = await fs.readdir(d, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const p = path.join(d, e.name);
      const st = await fs.lstat(p);
      if (e.isDirectory()) {
        out.set(p, `dir ${st.mode & 0o777}`);
        await walk(p);
      } else if (e.isSymbolicLink()) out.set(p, `link ${await fs.readlink(p)}`);
      else
        out.set(
          p,
          `file ${st.mode & 0o777} ${st.mtimeMs} ${(await fs.readFile(p)).toString("base64")}`,
        );
    }
  };
  await walk(dir);
  return out;
}
