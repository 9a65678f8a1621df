/**
 * The import target of a KB a running server holds (docs/import.md "Through a server"): its
 * tools over one MCP session — `concept_list` to find what exists, `map_create`, one
 * `concept_batch` per chunk (a failing operation is set aside and the rest sent again, so one
 * bad note never sinks its chunk), `asset_write` per attachment and `concept_expand` for the
 * folder concepts of --dir-as-concept. Every call the server commits is counted.
 */
import type { RemoteServer } from "../../client/commands/reindex-remote.js";
import { ToolError } from "../../client/errors.js";
import type { FetchFn } from "../../client/health.js";
import { type McpSession, openMcpSession } from "../../client/mcp-session.js";
import { writeOperation } from "../../kb/import/chunks.js";
import type { ChunkOutcome, ChunkWork, Failure, ImportTarget } from "../../kb/import/target.js";

/** concept_list's largest page: a folder with more is checked id by id. */
const LIST_LIMIT = 5000;
const CALL_TIMEOUT_MS = 120_000;

const messageOf = (err: unknown) =>
  err instanceof ToolError ? err.text : ((err as Error)?.message ?? String(err));

const parentOf = (id: string) => id.slice(0, Math.max(0, id.lastIndexOf("/")));

export async function openRemoteTarget(
  server: RemoteServer,
  kb: string,
  fetchFn?: FetchFn,
): Promise<RemoteTarget> {
  const url = `${server.base}/mcp/routed?kbs=${encodeURIComponent(kb)}`;
  return new RemoteTarget(await openMcpSession(url, server.headers, fetchFn, CALL_TIMEOUT_MS));
}

export class RemoteTarget implements ImportTarget {
  readonly via = "server" as const;
  private commits = 0;

  constructor(private readonly session: McpSession) {}

  private async call<T>(name: string, args: Record<string, unknown>): Promise<T> {
    return JSON.parse(await this.session.callTool(name, args)) as T;
  }

  async existingConcepts(ids: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    const byFolder = new Map<string, string[]>();
    for (const id of ids) byFolder.set(parentOf(id), [...(byFolder.get(parentOf(id)) ?? []), id]);
    for (const [folder, wanted] of byFolder) {
      const page = await this.call<{
        items: Array<{ id: string }>;
        truncated?: boolean;
        index?: unknown;
      }>("concept_list", { prefix: folder, limit: LIST_LIMIT });
      const listed = new Set(page.items.map((i) => i.id));
      // A page cut at the cap, or listed while the server's index is still building, may miss
      // a concept: those ids are then read one by one.
      const partial = page.truncated === true || page.index !== undefined;
      for (const id of wanted) {
        if (listed.has(id) || (partial && (await this.exists(id)))) found.add(id);
      }
    }
    return found;
  }

  private async exists(id: string): Promise<boolean> {
    try {
      await this.session.callTool("concept_read", { id });
      return true;
    } catch (err) {
      if (err instanceof ToolError && /^not_found\b|not found/.test(err.text)) return false;
      throw err;
    }
  }

  async existingAssets(paths: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const owner of new Set(paths.map(parentOf))) {
      const page = await this.call<{ items: Array<{ path: string }> }>("asset_list", {
        prefix: owner,
      });
      for (const item of page.items) found.add(item.path);
    }
    return new Set(paths.filter((p) => found.has(p)));
  }

  async existingMaps(): Promise<Set<string>> {
    const list = await this.call<{ maps: Array<{ name: string }> }>("map_list", {});
    return new Set(list.maps.map((m) => m.name));
  }

  async createMaps(names: readonly string[]): Promise<Failure[]> {
    const failed: Failure[] = [];
    for (const name of names) {
      try {
        await this.session.callTool("map_create", { name, title: name });
        this.commits++;
      } catch (err) {
        failed.push({ what: name, message: messageOf(err) });
      }
    }
    return failed;
  }

  async writeChunk(work: ChunkWork): Promise<ChunkOutcome> {
    const outcome: ChunkOutcome = { written: [], failed: [], assetsWritten: [], assetsFailed: [] };
    let batch = [...work.concepts];
    while (batch.length > 0) {
      try {
        await this.session.callTool("concept_batch", { operations: batch.map(writeOperation) });
        this.commits++;
        outcome.written.push(...batch.map((c) => c.id));
        break;
      } catch (err) {
        if (!(err instanceof ToolError)) throw err;
        const at = /operations\[(\d+)\]/.exec(err.text)?.[1];
        const bad = at === undefined ? undefined : batch[Number(at)];
        if (bad === undefined) {
          // Not one operation's fault (too large, forbidden, …): the whole chunk failed.
          for (const c of batch) outcome.failed.push({ what: c.id, message: err.text });
          break;
        }
        outcome.failed.push({ what: bad.id, message: err.text });
        batch = batch.filter((c) => c !== bad);
      }
    }
    const written = new Set(outcome.written);
    for (const { asset, bytes } of work.assets) {
      if (!written.has(asset.owner)) continue;
      try {
        const content_base64 = Buffer.from(bytes).toString("base64");
        await this.session.callTool("asset_write", { path: asset.path, content_base64 });
        this.commits++;
        outcome.assetsWritten.push(asset.path);
      } catch (err) {
        outcome.assetsFailed.push({ what: asset.path, message: messageOf(err) });
      }
    }
    for (const c of work.concepts) {
      if (!c.expand || !written.has(c.id)) continue;
      try {
        await this.session.callTool("concept_expand", { id: c.id });
        this.commits++;
      } catch (err) {
        outcome.failed.push({ what: c.id, message: messageOf(err) });
      }
    }
    return outcome;
  }

  async finish(): Promise<number> {
    await this.session.close();
    return this.commits;
  }

  close(): Promise<void> {
    return this.session.close();
  }
}
