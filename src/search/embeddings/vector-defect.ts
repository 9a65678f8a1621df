/**
 * Which embedding vectors cannot be used: all zero (no direction, so every cosine is 0 and the
 * concept ranks last for any query) or holding a non-finite number. Such a vector is never
 * stored; its text is asked for again by a later pass (docs/decisions.md, "An unusable embedding vector").
 * Pure.
 */

export type VectorDefect = "all zero" | "not finite";

/** Why a provider's vector cannot be used, or null when it can. */
export function vectorDefect(v: ArrayLike<number>): VectorDefect | null {
  let zero = true;
  for (let i = 0; i < v.length; i++) {
    const x = v[i] as number;
    if (!Number.isFinite(x)) return "not finite";
    if (x !== 0) zero = false;
  }
  return zero ? "all zero" : null;
}

/** Float32Array writes the platform's byte order; a stored BLOB is read back in it. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The same rule over a stored vector (a float32 BLOB), read in place. */
export function storedVectorDefect(bytes: Uint8Array): VectorDefect | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let zero = true;
  for (let i = 0; i + 4 <= bytes.byteLength; i += 4) {
    const x = view.getFloat32(i, LITTLE_ENDIAN);
    if (!Number.isFinite(x)) return "not finite";
    if (x !== 0) zero = false;
  }
  return zero ? "all zero" : null;
}
