/**
 * Worker threads running the package's own modules: the sibling `.ts` from source (tsx's loader
 * registered in the thread first), the sibling `.js` from dist/.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { siblingModule, startModuleWorker } from "../../src/common/module-worker.js";
import { useTempDirs } from "../support/temp-dir.js";

const dirs = useTempDirs("carto-worker-");

function ask(worker: Worker, n: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.postMessage(n);
  });
}

describe("siblingModule", () => {
  it("names the .ts beside a source file and the .js beside a built one", () => {
    expect(siblingModule("file:///p/src/a/pool.ts", "w").href).toBe("file:///p/src/a/w.ts");
    expect(siblingModule("file:///p/dist/a/pool.js", "w").href).toBe("file:///p/dist/a/w.js");
  });
});

describe("startModuleWorker", () => {
  it("runs a TypeScript module from source", async () => {
    const worker = startModuleWorker(siblingModule(import.meta.url, "echo-worker"));
    try {
      expect(await ask(worker, 21)).toBe(42);
    } finally {
      await worker.terminate();
    }
  });

  it("runs a built JavaScript module as it is", async () => {
    const file = join(dirs(), "echo.js");
    writeFileSync(
      file,
      'import { parentPort } from "node:worker_threads";\nparentPort.on("message", (n) => parentPort.postMessage(n + 1));\n',
    );
    writeFileSync(join(dirs(), "package.json"), '{"type":"module"}\n');
    const worker = startModuleWorker(siblingModule(pathToFileURL(file).href, "echo"));
    try {
      expect(await ask(worker, 1)).toBe(2);
    } finally {
      await worker.terminate();
    }
  });
});
