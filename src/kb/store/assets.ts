/**
 * Assets (non-Markdown files under data/, 1 MiB) and artifact files (KB-root `skills/`, `agents/`,
 * `hooks/`, `mcp/`, `instructions.md`, and the legacy `artifacts/` for reads; 256 KiB): listing,
 * reading and write/delete plans with raw-sha256 `if_match`.
 */

import { KbError } from "../../common/errors.js";
import { normalizeRelPath } from "../../common/paths.js";
import type { AssetInfo, WritePlan } from "../core/api.js";
import { bytesHash } from "../core/hash.js";
import { extractLinks } from "../core/markdown.js";
import { checkIfMatch, type PlanContext } from "../core/plan-context.js";
import {
  ARTIFACT_FILE_MAX_BYTES,
  ARTIFACT_ROOTS,
  INSTRUCTIONS_FILE,
  LEGACY_ARTIFACTS_DIR,
} from "./artifacts.js";
import { listWalkDir, mapBatched, readBytesOrNull, refuseWrongKinds, walkFiles } from "./fsutil.js";
import { walkMarkdown } from "./store-read.js";

export const ASSET_MAX_BYTES = 1024 * 1024;
export const ARTIFACT_MAX_BYTES = ARTIFACT_FILE_MAX_BYTES;

interface Area {
  dir: "data" | "artifacts";
  what: "asset" | "artifact";
  max: number;
}
const ASSETS: Area = { dir: "data", what: "asset", max: ASSET_MAX_BYTES };
const ARTIFACTS: Area = { dir: "artifacts", what: "artifact", max: ARTIFACT_MAX_BYTES };

/**
 * A KB-root artifact path (`skills/x/SKILL.md`, `agents/x.md`, `hooks/x/hook.json`,
 * `mcp/x.json`, `instructions.md`); reads also accept the legacy `artifacts/…`.
 */
function artifactPath(path: string, write: boolean): string {
  const norm = normalizeRelPath(path, "artifact path");
  const first = norm.split("/")[0] ?? "";
  const underRoot = (ARTIFACT_ROOTS as readonly string[]).includes(first) && norm !== first;
  if (norm === INSTRUCTIONS_FILE || underRoot) return norm;
  if (!write && first === LEGACY_ARTIFACTS_DIR && norm !== first) return norm;
  // Reads of a bare path keep meaning what they did before the move: a file under artifacts/.
  if (!write) return `${LEGACY_ARTIFACTS_DIR}/${norm}`;
  throw new KbError(
    "invalid_argument",
    `artifact path "${path}" must be under ${ARTIFACT_ROOTS.map((r) => `${r}/`).join(", ")} or be ${INSTRUCTIONS_FILE} (KB-root paths, e.g. skills/<name>/SKILL.md)`,
    { argument: "path" },
  );
}

/** Every regular file (relative paths, sorted) under `dir`, hidden entries and symlinks skipped. */
export function filesUnderDir(root: string, dir: string): Promise<string[]> {
  return walkFiles(root, dir);
}

/** Normalizes an asset path to `data/…` (an artifact path as artifactPath) and applies the path rules. */
export function areaPath(area: Area, path: string, write = true): string {
  if (area.what === "artifact") return artifactPath(path, write);
  const norm = normalizeRelPath(path, `${area.what} path`);
  const full = norm.startsWith(`${area.dir}/`) ? norm : `${area.dir}/${norm}`;
  if (area.what === "asset" && full.toLowerCase().endsWith(".md")) {
    throw new KbError(
      "invalid_argument",
      `asset path "${path}" ends in .md: Markdown files are concepts (use concept_write)`,
    );
  }
  return full;
}

async function artifactFiles(root: string): Promise<string[]> {
  const dirs = [...ARTIFACT_ROOTS, LEGACY_ARTIFACTS_DIR];
  const files = (await Promise.all(dirs.map((d) => filesUnderDir(root, d)))).flat();
  const top = await listWalkDir(root, ".");
  if (top.some((e) => e.isFile() && e.name === INSTRUCTIONS_FILE)) files.push(INSTRUCTIONS_FILE);
  return files.sort();
}

async function listArea(root: string, area: Area, prefix?: string): Promise<AssetInfo[]> {
  let files =
    area.what === "artifact" ? await artifactFiles(root) : await filesUnderDir(root, area.dir);
  if (area.what === "asset") files = files.filter((f) => !f.endsWith(".md"));
  if (prefix) {
    // A prefix names a folder (authorization judges it as one): `alpha` never matches `alphax/`.
    const folder = prefix.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
    const p =
      folder === area.dir || folder.startsWith(`${area.dir}/`) ? folder : `${area.dir}/${folder}`;
    files = files.filter((f) => f.startsWith(`${p}/`));
  }
  const infos = await mapBatched(files, 32, async (path): Promise<AssetInfo | null> => {
    const bytes = await readBytesOrNull(root, path);
    // Deleted or moved since the walk: skipped, never listed as an empty file.
    return bytes === null ? null : { path, size: bytes.length, hash: bytesHash(bytes) };
  });
  return infos.filter((i): i is AssetInfo => i !== null);
}

async function readArea(
  root: string,
  area: Area,
  path: string,
): Promise<{ info: AssetInfo; bytes: Uint8Array }> {
  const rel = areaPath(area, path, false);
  await refuseWrongKinds(root, rel);
  const bytes = await readBytesOrNull(root, rel);
  if (bytes === null) throw new KbError("not_found", `${area.what} "${rel}" does not exist`);
  return {
    info: { path: rel, size: bytes.length, hash: bytesHash(bytes) },
    bytes: new Uint8Array(bytes),
  };
}

async function planAreaWrite(
  ctx: PlanContext,
  area: Area,
  input: { path: string; bytes: Uint8Array; ifMatch?: string },
): Promise<WritePlan> {
  const rel = areaPath(area, input.path);
  if (input.bytes.length > area.max) {
    throw new KbError(
      "too_large",
      `${area.what} "${rel}" is ${input.bytes.length} bytes; the limit is ${area.max}`,
    );
  }
  await refuseWrongKinds(ctx.root, rel);
  const existing = await readBytesOrNull(ctx.root, rel);
  checkIfMatch(
    `${area.what} "${rel}"`,
    existing ? bytesHash(existing) : null,
    input.ifMatch, // given for a missing target: it was deleted since it was read
  );
  return {
    changes: [{ path: rel, content: input.bytes }],
    target: rel,
    touchedIds: [],
    result: {
      path: rel,
      size: input.bytes.length,
      hash: bytesHash(input.bytes),
      created: existing === null,
    },
  };
}

async function planAreaDelete(
  ctx: PlanContext,
  area: Area,
  input: { path: string; ifMatch?: string },
): Promise<WritePlan> {
  // A legacy artifacts/ file may be deleted (not written): that is how a KB migrates.
  const rel = areaPath(area, input.path, false);
  await refuseWrongKinds(ctx.root, rel);
  const existing = await readBytesOrNull(ctx.root, rel);
  if (existing === null) throw new KbError("not_found", `${area.what} "${rel}" does not exist`);
  checkIfMatch(`${area.what} "${rel}"`, bytesHash(existing), input.ifMatch);
  return {
    changes: [{ path: rel, content: null }],
    target: rel,
    touchedIds: [],
    result: { path: rel, deleted: true },
  };
}

export const listAssets = (root: string, prefix?: string) => listArea(root, ASSETS, prefix);
export const readAsset = (root: string, path: string) => readArea(root, ASSETS, path);
export const listArtifacts = (root: string) => listArea(root, ARTIFACTS);
export const readArtifact = (root: string, path: string) => readArea(root, ARTIFACTS, path);
export const planAssetWrite = (
  ctx: PlanContext,
  input: { path: string; bytes: Uint8Array; ifMatch?: string },
) => planAreaWrite(ctx, ASSETS, input);

/** Concept files whose links point at `assetPath`. */
async function referencesTo(root: string, assetPath: string): Promise<string[]> {
  const files = [...(await walkMarkdown(root, "data")), ...(await walkMarkdown(root, "services"))];
  const hits = await mapBatched(files, 64, async (file) => {
    const text = ((await readBytesOrNull(root, file)) ?? Buffer.alloc(0)).toString("utf8");
    if (!text.includes(assetPath.split("/").pop() ?? assetPath)) return null;
    return extractLinks(text, file).some((l) => l.kind === "asset" && l.target === assetPath)
      ? file
      : null;
  });
  return hits.filter((h): h is string => h !== null);
}

/** asset_delete: refuses an asset still linked from a concept unless `force`. */
export async function planAssetDelete(
  ctx: PlanContext,
  input: { path: string; ifMatch?: string; force?: boolean },
): Promise<WritePlan> {
  const plan = await planAreaDelete(ctx, ASSETS, input);
  if (!input.force) {
    const refs = await referencesTo(ctx.root, plan.target);
    if (refs.length > 0) {
      throw new KbError(
        "conflict",
        `asset "${plan.target}" is still linked from ${refs.slice(0, 10).join(", ")}: remove the links or pass force`,
        { referencedBy: refs },
      );
    }
  }
  return plan;
}

function requireArtifactWrite(ctx: PlanContext): void {
  if (!ctx.settings.allowArtifactWrite) {
    throw new KbError(
      "not_configured",
      "artifact writes are disabled for this KB: set allow_artifact_write: true",
    );
  }
}

export async function planArtifactWrite(
  ctx: PlanContext,
  input: { path: string; bytes: Uint8Array; ifMatch?: string },
): Promise<WritePlan> {
  requireArtifactWrite(ctx);
  return planAreaWrite(ctx, ARTIFACTS, input);
}

export async function planArtifactDelete(
  ctx: PlanContext,
  input: { path: string; ifMatch?: string },
): Promise<WritePlan> {
  requireArtifactWrite(ctx);
  return planAreaDelete(ctx, ARTIFACTS, input);
}
