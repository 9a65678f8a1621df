import { describe, expect, it } from "vitest";
import {
  CHUNK_CHARS,
  chunkConcept,
  chunkHash,
  MAX_CHUNKS_PER_CONCEPT,
} from "../../../src/search/embeddings/chunk.js";

describe("chunkConcept", () => {
  it("cuts one chunk per heading section, each carrying the title and its heading", () => {
    const body =
      "Intro line.\n\n## Setup\nInstall it.\n\n```sh\n# not a heading\n```\n\n## Use\nRun it.";
    const chunks = chunkConcept("s", "Tool", body);
    expect(chunks.map((c) => c.text)).toEqual([
      "Tool\nIntro line.",
      "Tool\nSetup\nInstall it.\n\n```sh\n# not a heading\n```",
      "Tool\nUse\nRun it.",
    ]);
    expect(body.slice(chunks[2]?.start)).toBe("Run it.");
  });

  it("keys chunks by space and text: same text same key, another model another key", () => {
    const [a] = chunkConcept("ollama:m1:auto", "T", "same");
    const [b] = chunkConcept("ollama:m1:auto", "T", "same");
    const [c] = chunkConcept("ollama:m2:auto", "T", "same");
    expect(a?.hash).toBe(b?.hash);
    expect(a?.hash).not.toBe(c?.hash);
    expect(a?.hash).toBe(chunkHash("ollama:m1:auto", "T\nsame"));
  });

  it("cuts a long section into windows and caps the chunks of a huge concept", () => {
    expect(chunkConcept("s", null, "x".repeat(CHUNK_CHARS * 2 + 1))).toHaveLength(3);
    expect(chunkConcept("s", null, "y".repeat(CHUNK_CHARS * 200))).toHaveLength(
      MAX_CHUNKS_PER_CONCEPT,
    );
  });

  it("an empty body still yields the title", () => {
    expect(chunkConcept("s", "Only a title", "").map((c) => c.text)).toEqual(["Only a title"]);
    expect(chunkConcept("s", null, "  \n")).toEqual([]);
  });
});
