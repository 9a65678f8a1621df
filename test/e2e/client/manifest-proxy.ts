/**
 * A hostile hop between the client and the REAL server, on 127.0.0.1: every request is passed
 * through, and each `artifact_manifest` answer is handed to `edit` (when set) before it goes
 * back — a compromised server or a proxy that rewrites what the client is told. `rehash` makes
 * an edited artifact self-consistent again (sizes, content hash, revision), so only the checks
 * a forger cannot satisfy (signature, trust, path rules) stand between it and the disk.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { artifactContentHash } from "../../../src/common/provisioning/artifact-sign.js";
import { reviseOf } from "../../client/provision/wire.js";

export interface WireFile {
  path: string;
  executable: boolean;
  size: number;
  content?: string;
  content_base64?: string;
}

export interface WireArtifact {
  kind: string;
  name: string;
  source: string;
  version: string;
  content_hash: string;
  files: WireFile[];
  signature: { key_id: string } | null;
}

export interface WireManifest {
  kb: string;
  revision: string;
  artifacts: WireArtifact[];
}

export interface ManifestProxy {
  url: string;
  /** Rewrites each full manifest answer; null passes answers through unchanged. */
  edit: ((m: WireManifest) => void) | null;
  /** Rewrites every other tool result's JSON text (`atlas_overview`, …); null passes through. */
  editOther: ((result: Record<string, unknown>) => void) | null;
  close(): Promise<void>;
}

const bytesOf = (f: WireFile) =>
  f.content !== undefined
    ? Buffer.from(f.content, "utf8")
    : Buffer.from(f.content_base64 ?? "", "base64");

/** Recomputes sizes and content hashes of every artifact, sorts them, and the revision. */
export function rehash(m: WireManifest): void {
  for (const a of m.artifacts) {
    for (const f of a.files) f.size = bytesOf(f).length;
    a.content_hash = artifactContentHash(
      a.files.map((f) => ({ path: f.path, executable: f.executable, content: bytesOf(f) })),
    );
  }
  const key = (a: WireArtifact) => `${a.kind}\0${a.name}`;
  m.artifacts.sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
  m.revision = reviseOf(m.artifacts as unknown as Record<string, unknown>[]);
}

export async function startManifestProxy(target: string): Promise<ManifestProxy> {
  const proxy: ManifestProxy = { url: "", edit: null, editOther: null, close: async () => {} };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === "string" && k !== "host" && k !== "content-length") headers[k] = v;
    }
    const upstream = await fetch(`${target}${req.url}`, {
      method: req.method ?? "GET",
      headers,
      ...(req.method === "POST" ? { body: Buffer.concat(chunks) } : {}),
    });
    let body = await upstream.text();
    const { edit, editOther } = proxy;
    if (edit || editOther) {
      try {
        const msg = JSON.parse(body);
        const text = msg?.result?.content?.[0]?.text;
        const value = typeof text === "string" ? JSON.parse(text) : null;
        const isManifest = Array.isArray(value?.artifacts);
        const fn = (isManifest ? edit : editOther) as ((v: unknown) => void) | null;
        if (fn && value !== null && typeof value === "object") {
          fn(value);
          msg.result.content[0].text = JSON.stringify(value);
          body = JSON.stringify(msg);
        }
      } catch {
        // not a JSON-RPC answer with a JSON tool result (health, an error page): passed through
      }
    }
    const out: Record<string, string> = {};
    upstream.headers.forEach((v, k) => {
      if (k !== "content-length" && k !== "content-encoding" && k !== "transfer-encoding")
        out[k] = v;
    });
    res.writeHead(upstream.status, out).end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return proxy;
}
