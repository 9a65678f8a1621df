/**
 * `search.embeddings` (docs/search.md "Semantic and hybrid search"): typed, the API key read from
 * the variable api_key_env names (never echoed), a bad value named by its key.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveServerConfig } from "../../../src/cli/config/resolve.js";
import { useTempDirs } from "../../support/temp-dir.js";

const newDir = useTempDirs("carto-embcfg-");

function withConfig(yaml: string): string {
  const d = newDir();
  mkdirSync(join(d, "kb", "data"), { recursive: true });
  writeFileSync(join(d, "kb", "data", "index.md"), "---\ntype: Index\n---\n");
  writeFileSync(join(d, "c.yaml"), `kbs:\n  - path: kb\n${yaml}`);
  return d;
}

const resolve = (cwd: string, env: Record<string, string> = {}) =>
  resolveServerConfig({ config: "c.yaml" }, env, cwd);

describe("search.embeddings", () => {
  it("absent: keyword only", () => {
    expect(resolve(withConfig("")).embeddings).toBeNull();
  });

  it("resolves provider, url, model, dimensions and the key from api_key_env", () => {
    const cwd = withConfig(
      "search:\n  embeddings:\n    provider: openai\n    url: http://127.0.0.1:8080\n    model: bge-small\n    dimensions: 384\n    api_key_env: EMB_KEY\n    timeout_seconds: 5\n",
    );
    const c = resolve(cwd, { EMB_KEY: "sk-planted" });
    expect(c.embeddings).toEqual({
      provider: "openai",
      url: "http://127.0.0.1:8080",
      model: "bge-small",
      dimensions: 384,
      apiKey: "sk-planted",
      timeoutMs: 5000,
    });
    expect(c.warnings.join("\n")).not.toContain("sk-planted");
  });

  it("an unset api_key_env variable is an error naming the key and the variable", () => {
    const cwd = withConfig(
      "search:\n  embeddings:\n    provider: openai\n    url: http://h:1\n    model: m\n    api_key_env: EMB_MISSING\n",
    );
    expect(() => resolve(cwd)).toThrow(/search\.embeddings\.api_key_env: .*EMB_MISSING is not set/);
  });

  it("a bad provider or url is named by its key", () => {
    expect(() =>
      resolve(
        withConfig(
          "search:\n  embeddings:\n    provider: cohere\n    url: http://h\n    model: m\n",
        ),
      ),
    ).toThrow(/search\.embeddings\.provider/);
    expect(() =>
      resolve(
        withConfig(
          "search:\n  embeddings:\n    provider: ollama\n    url: ftp://h\n    model: m\n",
        ),
      ),
    ).toThrow(/search\.embeddings\.url: 'ftp:\/\/h' is not an http\(s\) URL/);
  });
});

describe("Go's search.ollama_url / ollama_model (Go key table)", () => {
  it("turn on Ollama embeddings, model defaulting to nomic-embed-text, without a warning", () => {
    const c = resolve(withConfig('search:\n  ollama_url: "http://127.0.0.1:11434"\n'));
    expect(c.embeddings).toEqual({
      provider: "ollama",
      url: "http://127.0.0.1:11434",
      model: "nomic-embed-text",
    });
    expect(c.warnings.filter((w) => w.includes("ollama"))).toEqual([]);
  });

  it("an empty ollama_url is off, as in Go; the env vars win over YAML", () => {
    expect(resolve(withConfig('search:\n  ollama_url: ""\n')).embeddings).toBeNull();
    const c = resolve(withConfig("search:\n  ollama_url: http://a:1\n  ollama_model: m1\n"), {
      CARTOGRAPHER_OLLAMA: "http://b:2",
      CARTOGRAPHER_OLLAMA_MODEL: "m2",
    });
    expect(c.embeddings).toMatchObject({ url: "http://b:2", model: "m2" });
  });
});
