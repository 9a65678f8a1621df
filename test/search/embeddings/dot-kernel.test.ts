import { describe, expect, it } from "vitest";
import { createKernel, dotAt } from "../../../src/search/embeddings/dot-kernel.js";

function filled(kernelMatrix: Float32Array, seed: number): void {
  let x = seed;
  for (let i = 0; i < kernelMatrix.length; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    kernelMatrix[i] = x / 2147483648 - 0.5;
  }
}

describe("dot kernel", () => {
  for (const dims of [384, 64, 6]) {
    it(`scores every row like the plain loop (dims ${dims})`, () => {
      const rows = 37;
      const kernel = createKernel(rows, dims);
      filled(kernel.matrix, 1);
      const query = new Float32Array(dims);
      filled(query, 2);
      const dots = kernel.scores(query);
      expect(dots).toHaveLength(rows);
      for (let r = 0; r < rows; r++)
        expect(dots[r]).toBeCloseTo(dotAt(kernel.matrix, r * dims, query, dims), 4);
    });
  }

  it("runs WebAssembly SIMD on this Node (the matrix lives in the module's memory)", () => {
    const kernel = createKernel(4, 8);
    expect(kernel.matrix.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    // A JS-fallback matrix owns its whole buffer; the wasm one is a view into a larger memory.
    expect(kernel.matrix.buffer.byteLength).toBeGreaterThan(kernel.matrix.byteLength);
  });
});
