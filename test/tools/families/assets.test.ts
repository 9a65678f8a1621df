import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assetTools } from "../../../src/tools/families/assets.js";
import { mapTools } from "../../../src/tools/families/maps.js";
import { writeTools } from "../../../src/tools/families/write.js";
import { callTool } from "../../support/call-tool.js";
import {
  commitCount,
  expectKbError,
  headSubject,
  makeTempKb,
  type TempKb,
  tool,
} from "../../support/tool-kb.js";

const b64 = (text: string) => Buffer.from(text).toString("base64");

let kb: TempKb;
beforeAll(async () => {
  kb = await makeTempKb({ allowArtifactWrite: true });
  await callTool(kb.runtime, tool(mapTools, "map_create"), { name: "infra", kind: "map" });
  await callTool(kb.runtime, tool(mapTools, "map_create"), { name: "diary", kind: "journal" });
});
afterAll(async () => kb.cleanup());

describe("assets", () => {
  it("write, read and list round-trip bytes; one commit per write", async () => {
    const before = commitCount(kb.root);
    const written = (await callTool(kb.runtime, tool(assetTools, "asset_write"), {
      path: "infra/diagram.png",
      content_base64: b64("PNGDATA"),
    })) as { path: string; hash: string };
    expect(written.path).toBe("data/infra/diagram.png");
    expect(commitCount(kb.root)).toBe(before + 1);
    expect(headSubject(kb.root)).toBe("asset_write: data/infra/diagram.png");
    const read = (await callTool(kb.runtime, tool(assetTools, "asset_read"), {
      path: "data/infra/diagram.png",
    })) as {
      content_base64: string;
      hash: string;
    };
    expect(Buffer.from(read.content_base64, "base64").toString()).toBe("PNGDATA");
    expect(read.hash).toBe(written.hash);
    const list = (await callTool(kb.runtime, tool(assetTools, "asset_list"), {
      prefix: "infra",
    })) as {
      items: { path: string }[];
    };
    expect(list.items.map((i) => i.path)).toEqual(["data/infra/diagram.png"]);
  });

  it("asset_list's prefix names a folder: zeta never lists zeta2's assets", async () => {
    for (const path of ["zeta/a.png", "zeta2/b.png"]) {
      await callTool(kb.runtime, tool(assetTools, "asset_write"), {
        path,
        content_base64: b64("X"),
      });
    }
    for (const prefix of ["zeta", "zeta/", "./zeta", "data/zeta"]) {
      const list = (await callTool(kb.runtime, tool(assetTools, "asset_list"), { prefix })) as {
        items: { path: string }[];
      };
      expect(
        list.items.map((i) => i.path),
        prefix,
      ).not.toContain("data/zeta2/b.png");
      expect(
        list.items.map((i) => i.path),
        prefix,
      ).toContain("data/zeta/a.png");
    }
  });

  it("asset_list hides assets of maps the caller cannot see", async () => {
    await callTool(kb.runtime, tool(assetTools, "asset_write"), {
      path: "diary/photo.jpg",
      content_base64: b64("JPG"),
    });
    const visibility = {
      all: false as const,
      rules: [{ maps: ["infra"], journals: [], types: [] }],
    };
    const list = (await callTool(
      kb.runtime,
      tool(assetTools, "asset_list"),
      {},
      { visibility },
    )) as {
      items: { path: string }[];
      total: number;
    };
    expect(list.items.map((i) => i.path)).toEqual(["data/infra/diagram.png"]);
    expect(list.total).toBe(1);
  });

  it("documented errors: bad base64, stale if_match, not_found, .md paths", async () => {
    const write = tool(assetTools, "asset_write");
    await expectKbError(
      () => callTool(kb.runtime, write, { path: "infra/x.bin", content_base64: "@@not base64" }),
      "invalid_argument",
    );
    await expectKbError(
      () =>
        callTool(kb.runtime, write, {
          path: "infra/diagram.png",
          content_base64: b64("v2"),
          if_match: "0".repeat(64),
        }),
      "stale_write",
    );
    await expectKbError(
      () => callTool(kb.runtime, write, { path: "infra/note.md", content_base64: b64("x") }),
      "invalid_argument",
    );
    await expectKbError(
      () => callTool(kb.runtime, tool(assetTools, "asset_read"), { path: "infra/none.png" }),
      "not_found",
    );
  });

  it("asset_delete refuses a linked asset unless force", async () => {
    await callTool(kb.runtime, tool(writeTools, "concept_write"), {
      id: "infra/overview",
      frontmatter: { type: "note" },
      body: "![diagram](diagram.png)\n",
    });
    const err = await expectKbError(
      () => callTool(kb.runtime, tool(assetTools, "asset_delete"), { path: "infra/diagram.png" }),
      "conflict",
    );
    expect(err.message).toContain("data/infra/overview.md");
    await callTool(kb.runtime, tool(assetTools, "asset_delete"), {
      path: "infra/diagram.png",
      force: true,
    });
    await expectKbError(
      () => callTool(kb.runtime, tool(assetTools, "asset_read"), { path: "infra/diagram.png" }),
      "not_found",
    );
  });

  it("asset_delete removes in one commit", async () => {
    const before = commitCount(kb.root);
    await callTool(kb.runtime, tool(assetTools, "asset_delete"), { path: "diary/photo.jpg" });
    expect(commitCount(kb.root)).toBe(before + 1);
    await expectKbError(
      () => callTool(kb.runtime, tool(assetTools, "asset_delete"), { path: "diary/photo.jpg" }),
      "not_found",
    );
  });
});

describe("artifacts", () => {
  it("write, read, list and delete text artifacts with raw-sha256 if_match", async () => {
    const write = tool(assetTools, "artifact_write");
    const before = commitCount(kb.root);
    // KB-root artifact paths only (docs/provisioning.md); a bare name is refused.
    await expectKbError(
      () => callTool(kb.runtime, write, { path: "report.txt", content: "hello" }),
      "invalid_argument",
    );
    const written = (await callTool(kb.runtime, write, {
      path: "skills/report/report.txt",
      content: "hello",
    })) as {
      path: string;
      hash: string;
    };
    expect(commitCount(kb.root)).toBe(before + 1);
    expect(await readFile(join(kb.root, written.path), "utf8")).toBe("hello");
    const read = (await callTool(kb.runtime, tool(assetTools, "artifact_read"), {
      path: written.path,
    })) as {
      content: string;
    };
    expect(read.content).toBe("hello");
    const list = (await callTool(kb.runtime, tool(assetTools, "artifact_list"), {})) as {
      items: { path: string }[];
    };
    expect(list.items.map((i) => i.path)).toContain(written.path);
    await expectKbError(
      () =>
        callTool(kb.runtime, write, {
          path: "skills/report/report.txt",
          content: "x",
          if_match: "f".repeat(64),
        }),
      "stale_write",
    );
    await callTool(kb.runtime, write, {
      path: "skills/report/report.txt",
      content: "v2",
      if_match: written.hash,
    });
    await expectKbError(
      () =>
        callTool(kb.runtime, write, {
          path: "skills/report/big.txt",
          content: "z".repeat(256 * 1024 + 1),
        }),
      "too_large",
    );
    await callTool(kb.runtime, tool(assetTools, "artifact_delete"), {
      path: "skills/report/report.txt",
    });
    await expectKbError(
      () =>
        callTool(kb.runtime, tool(assetTools, "artifact_read"), {
          path: "skills/report/report.txt",
        }),
      "not_found",
    );
  });
});

describe("artifact_read", () => {
  it("returns text as content and anything not valid UTF-8 as content_base64, never garbled", async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe, 0x80]);
    await mkdir(join(kb.root, "artifacts"), { recursive: true });
    await writeFile(join(kb.root, "artifacts/blob.bin"), bytes);
    await writeFile(join(kb.root, "artifacts/note.txt"), "héllo ✓\n");
    const read = tool(assetTools, "artifact_read");
    const bin = (await callTool(kb.runtime, read, { path: "blob.bin" })) as Record<string, unknown>;
    expect(Object.keys(bin).sort()).toEqual(["content_base64", "hash", "path", "size"]);
    expect(Buffer.from(bin.content_base64 as string, "base64").equals(bytes)).toBe(true);
    const text = (await callTool(kb.runtime, read, { path: "note.txt" })) as Record<
      string,
      unknown
    >;
    expect(Object.keys(text).sort()).toEqual(["content", "hash", "path", "size"]);
    expect(text.content).toBe("héllo ✓\n");
  });
});

describe("artifact writes without allow_artifact_write", () => {
  it("are not_configured even when called directly", async () => {
    const plain = await makeTempKb();
    try {
      await expectKbError(
        () =>
          callTool(plain.runtime, tool(assetTools, "artifact_write"), {
            path: "a.txt",
            content: "x",
          }),
        "not_configured",
      );
      await expectKbError(
        () => callTool(plain.runtime, tool(assetTools, "artifact_delete"), { path: "a.txt" }),
        "not_configured",
      );
    } finally {
      await plain.cleanup();
    }
  });
});
