/**
 * The scan of semantic search: the dot product of one query with every row of a float32
 * matrix. A WebAssembly SIMD kernel (4 lanes) does it ~3× faster than the best plain loop
 * (measured: 100,000 × 384 in ~60 ms vs ~187 ms, same machine, same moment); where SIMD is
 * unavailable, or dims is not a multiple of 4, the plain loop runs. The matrix lives in the
 * kernel's own memory, written once by the loader.
 *
 * The module is this text format, compiled with wabt (`wat2wasm --enable-simd`):
 *
 *   (func (export "scores") (param $m i32) (param $q i32) (param $rows i32) (param $dims i32)
 *                           (param $out i32)
 *     for each row r: acc = f32x4 0; for d in 0..dims step 4:
 *       acc += v128.load(m + 4d) * v128.load(q + 4d)
 *     out[r] = lane0 + lane1 + lane2 + lane3; m += 4·dims)
 *   (memory (export "mem") 1)
 */

const WASM_BASE64 =
  "AGFzbQEAAAABCQFgBX9/f39/AAMCAQAFAwEAAQcQAgNtZW0CAAZzY29yZXMAAAqbAQGYAQICfwF7AkADQCAFIAJPDQH9DAAAAAAAAAAAAAAAAAAAAAAhB0EAIQYCQANAIAYgA08NASAHIAAgBkECdGr9AAQAIAEgBkECdGr9AAQA/eYB/eQBIQcgBkEEaiEGDAALCyAEIAVBAnRqIAf9HwAgB/0fAZIgB/0fAiAH/R8DkpI4AgAgACADQQJ0aiEAIAVBAWohBQwACwsL";

let compiled: WebAssembly.Module | null | undefined;

function simdModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(Buffer.from(WASM_BASE64, "base64"));
    } catch {
      compiled = null; // no WebAssembly SIMD here: the plain loop serves
    }
  }
  return compiled;
}

export interface DotKernel {
  /** rows × dims floats, row-major: fill it once after createKernel. */
  readonly matrix: Float32Array;
  /** query · row for every row (the returned array is reused by the next call). */
  scores(query: Float32Array): Float32Array;
}

const PAGE = 65_536;

export function createKernel(rows: number, dims: number): DotKernel {
  const mod = dims % 4 === 0 ? simdModule() : null;
  if (mod) {
    try {
      return wasmKernel(mod, rows, dims);
    } catch {
      // memory.grow refused (address space): the plain loop over a JS array
    }
  }
  return jsKernel(rows, dims);
}

function wasmKernel(mod: WebAssembly.Module, rows: number, dims: number): DotKernel {
  const instance = new WebAssembly.Instance(mod);
  const { mem, scores } = instance.exports as {
    mem: WebAssembly.Memory;
    scores: (m: number, q: number, rows: number, dims: number, out: number) => void;
  };
  const queryAt = rows * dims * 4;
  const outAt = queryAt + dims * 4;
  const pages = Math.ceil((outAt + rows * 4) / PAGE) - mem.buffer.byteLength / PAGE;
  if (pages > 0) mem.grow(pages);
  const matrix = new Float32Array(mem.buffer, 0, rows * dims);
  const query = new Float32Array(mem.buffer, queryAt, dims);
  const out = new Float32Array(mem.buffer, outAt, rows);
  return {
    matrix,
    scores(q) {
      query.set(q);
      scores(0, queryAt, rows, dims, outAt);
      return out;
    },
  };
}

function jsKernel(rows: number, dims: number): DotKernel {
  const matrix = new Float32Array(rows * dims);
  const out = new Float32Array(rows);
  return {
    matrix,
    scores(q) {
      for (let r = 0, base = 0; r < rows; r++, base += dims) out[r] = dotAt(matrix, base, q, dims);
      return out;
    },
  };
}

/**
 * matrix[base .. base+dims) · query. Four accumulators: V8 keeps them in registers and overlaps
 * the multiplies, ~1.5× the simple loop (measured). Reads are in bounds by construction.
 */
export function dotAt(
  matrix: Float32Array,
  base: number,
  query: Float32Array,
  dims: number,
): number {
  let a = 0;
  let b = 0;
  let c = 0;
  let e = 0;
  let d = 0;
  for (; d + 3 < dims; d += 4) {
    const i = base + d;
    a += (matrix[i] as number) * (query[d] as number);
    b += (matrix[i + 1] as number) * (query[d + 1] as number);
    c += (matrix[i + 2] as number) * (query[d + 2] as number);
    e += (matrix[i + 3] as number) * (query[d + 3] as number);
  }
  for (; d < dims; d++) a += (matrix[base + d] as number) * (query[d] as number);
  return a + b + c + e;
}
