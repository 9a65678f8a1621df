/**
 * `cartographer resolve repo:<key>|path:<name> [--json] [--rescan]` (the Go client's command):
 * prints the local path a `{{repo:…}}` / `{{path:…}}` placeholder stands for on this machine.
 * Offline — it reads the client yaml (`search_roots`, `paths`), the repository index cache and,
 * when needed, the disk — so it works before any connect, and an agent that meets a placeholder
 * the instructions block's "Local paths" table does not list can run it.
 *
 * Exit 0 with the absolute path on stdout (`--json`: one object), 1 unresolved (stderr says
 * what was searched and how to fix it), 2 usage or an unreadable yaml.
 */
import { promises as fs } from "node:fs";
import { parseDocument } from "yaml";
import { readTextOrNull } from "../atomic-file.js";
import { type ClientConfig, loadConfig, parseClientConfig } from "../config.js";
import { isGoClientConfig } from "../go-config.js";
import {
  type CommandIo,
  type CommonOptions,
  configPath,
  EXIT_ERROR,
  EXIT_OK,
  tilde,
} from "../lib/io.js";
import { ResolveError } from "../repos/resolve-error.js";
import { PathResolver, PLACEHOLDER_KINDS, type PlaceholderKind } from "../repos/resolver.js";

export const EXIT_UNRESOLVED = 1;

export interface ResolveOptions extends CommonOptions {
  json?: boolean;
  /** Ignore the cached index and scan the search roots again. */
  rescan?: boolean;
}

/** `repo:x`, `path:x` or the placeholder itself (`{{repo:x}}`); undefined when neither. */
export function parseReference(arg: string): { kind: PlaceholderKind; ref: string } | undefined {
  const bare = /^\{\{(.*)\}\}$/s.exec(arg.trim())?.[1] ?? arg.trim();
  const colon = bare.indexOf(":");
  const kind = bare.slice(0, colon);
  const ref = bare.slice(colon + 1).trim();
  if (colon < 0 || ref === "" || /[{}\s]/.test(ref)) return undefined;
  if (!(PLACEHOLDER_KINDS as readonly string[]).includes(kind)) return undefined;
  return { kind: kind as PlaceholderKind, ref };
}

interface Settings {
  file: string;
  config: Pick<ClientConfig, "search_roots" | "paths">;
  warnings: string[];
}

/**
 * search_roots and paths of the yaml at `file`. A Go client's yaml has them under the same
 * names, so resolve keeps working on a machine not yet through upgrade-repair (with a warning).
 */
async function settingsOf(file: string): Promise<Settings> {
  const text = await readTextOrNull(file);
  const doc = text === null ? undefined : parseDocument(text);
  // A yaml that does not parse is left to loadConfig, which says where.
  const raw: unknown = doc && doc.errors.length === 0 ? doc.toJS() : undefined;
  if (isGoClientConfig(raw)) {
    const { search_roots, paths } = raw as Record<string, unknown>;
    return {
      file,
      config: parseClientConfig({ search_roots, paths }, file),
      warnings: [`${file} is in the Go client's shape; cartographer upgrade-repair converts it`],
    };
  }
  return { file, config: (await loadConfig(file)).config, warnings: [] };
}

export async function resolve(io: CommandIo, arg: string, opts: ResolveOptions): Promise<number> {
  const out = (o: object) => io.stdout.write(`${JSON.stringify(o)}\n`);
  const parsed = parseReference(arg);
  if (!parsed) {
    const message = `expected repo:<key> or path:<name> (e.g. repo:cartographer, repo:github.com/owner/name, path:assets), got ${JSON.stringify(arg)}`;
    if (opts.json) out({ ref: arg, error: { reason: "usage", message } });
    else io.stderr.write(`cartographer error: ${message}\n`);
    return EXIT_ERROR;
  }
  const ref = `${parsed.kind}:${parsed.ref}`;
  let settings: Settings;
  try {
    settings = await settingsOf(configPath(io, opts));
  } catch (err) {
    const message = (err as Error).message;
    if (opts.json) out({ ref, error: { reason: "config", message } });
    else io.stderr.write(`cartographer error: ${message}\n`);
    return EXIT_ERROR;
  }
  const resolver = new PathResolver(io, settings.config, tilde(io, settings.file), {
    ...(opts.rescan ? { rescan: true } : {}),
  });
  try {
    const hit = await resolver.resolve(parsed.kind, parsed.ref);
    const warnings = [...settings.warnings, ...hit.warnings];
    const stat = await fs.stat(hit.path).catch(() => undefined);
    if (!stat?.isDirectory()) warnings.push(`${hit.path} is not a folder on this machine`);
    for (const w of warnings) io.stderr.write(`cartographer warn: ${w}\n`);
    if (opts.json) out({ ref, path: hit.path, ...(hit.key ? { key: hit.key } : {}), warnings });
    else io.stdout.write(`${hit.path}\n`);
    return EXIT_OK;
  } catch (err) {
    if (!(err instanceof ResolveError)) throw err;
    if (opts.json) {
      out({
        ref,
        error: {
          reason: err.reason,
          message: err.message,
          ...(err.candidates.length > 0 ? { candidates: err.candidates } : {}),
        },
      });
    } else io.stderr.write(`cartographer error: ${err.message}\n`);
    return EXIT_UNRESOLVED;
  }
}
