/**
 * Ed25519 signature checks on a worker_threads pool (one worker per core). Node's verify costs
 * ~60–140 µs per signature; batching hundreds per message keeps per-entry overhead to a few
 * bytes copied, and leaves the main thread free to parse and hash the next lines meanwhile.
 * Every signature is still checked, against a key imported once per worker.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

// Inline (eval) so the same code runs from dist/, under tsx and under vitest alike.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { createPublicKey, verify } = require("node:crypto");
const key = createPublicKey({ key: Buffer.from(workerData.spki), format: "der", type: "spki" });
parentPort.on("message", (m) => {
  const hashes = Buffer.from(m.hashes);
  const sigs = Buffer.from(m.sigs);
  const ok = new Uint8Array(m.n);
  for (let i = 0; i < m.n; i++) {
    try {
      ok[i] = verify(null, hashes.subarray(i * 64, i * 64 + 64), key, sigs.subarray(i * 64, i * 64 + 64)) ? 1 : 0;
    } catch { ok[i] = 0; }
  }
  parentPort.postMessage({ id: m.id, ok }, [ok.buffer]);
});
`;

export interface SignaturePool {
  /** hashes: 64-char lowercase hex strings; sigs: 128-char lowercase hex (already shape-checked). */
  verifyBatch(hashes: readonly string[], sigs: readonly string[]): Promise<boolean[]>;
  close(): Promise<void>;
}

/** `spki` is the DER SubjectPublicKeyInfo of the Ed25519 key. */
export function createSignaturePool(spki: Buffer, size = availableParallelism()): SignaturePool {
  const workers: Worker[] = [];
  const waiting = new Map<
    number,
    { resolve: (ok: Uint8Array) => void; reject: (e: Error) => void }
  >();
  let nextId = 0;
  let turn = 0;
  const worker = (): Worker => {
    const count = Math.max(1, size);
    if (workers.length < count) {
      const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { spki } });
      w.on("message", (m: { id: number; ok: Uint8Array }) => {
        waiting.get(m.id)?.resolve(m.ok);
        waiting.delete(m.id);
      });
      w.on("error", (err) => {
        for (const p of waiting.values()) p.reject(err);
        waiting.clear();
      });
      workers.push(w);
      return w;
    }
    return workers[turn++ % workers.length] as Worker;
  };
  return {
    verifyBatch(hashes, sigs) {
      const n = hashes.length;
      const h = Buffer.allocUnsafe(n * 64);
      const s = Buffer.allocUnsafe(n * 64);
      for (let i = 0; i < n; i++) {
        h.write(hashes[i] as string, i * 64, 64, "latin1");
        s.write(sigs[i] as string, i * 64, 64, "hex");
      }
      const id = nextId++;
      return new Promise<boolean[]>((resolve, reject) => {
        waiting.set(id, { resolve: (ok) => resolve(Array.from(ok, (b) => b === 1)), reject });
        const hb = h.buffer.slice(h.byteOffset, h.byteOffset + h.length);
        const sb = s.buffer.slice(s.byteOffset, s.byteOffset + s.length);
        worker().postMessage({ id, n, hashes: hb, sigs: sb }, [hb, sb]);
      });
    },
    async close() {
      await Promise.all(workers.splice(0).map((w) => w.terminate()));
    },
  };
}
