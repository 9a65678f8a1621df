/**
 * The one precedence and empty-value rule of every setting (docs/decisions.md "An empty variable
 * is unset, an empty flag is refused"): flag > variable > YAML key > default; an empty variable
 * or YAML value is unset, an empty flag is an error naming the flag; a bad value's message names
 * the flag, variable or key it came from.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildServerAuth } from "../../../src/cli/commands/serve-auth.js";
import { settingsFrom } from "../../../src/cli/config/pick.js";
import { resolveServerConfig } from "../../../src/cli/config/resolve.js";
import type { ServeFlags } from "../../../src/cli/config/types.js";
import { useTempDirs } from "../../support/temp-dir.js";

const sandbox = useTempDirs("carto-pick-");

describe("pick", () => {
  const layers = (flag: string | undefined, key: string | undefined) =>
    ({ flag: ["--x", flag], env: "X", key: ["x.y", key] }) as const;

  it("takes the flag, else the variable, else the YAML key, else the default, naming each", () => {
    const s = settingsFrom({ X: "env" });
    expect(s.pick(layers("flag", "yaml"), "d")).toEqual({ value: "flag", source: "--x" });
    expect(s.pick(layers(undefined, "yaml"), "d")).toEqual({ value: "env", source: "X" });
    const noEnv = settingsFrom({});
    expect(noEnv.pick(layers(undefined, "yaml"), "d")).toEqual({ value: "yaml", source: "x.y" });
    expect(noEnv.pick(layers(undefined, undefined), "d")).toEqual({
      value: "d",
      source: "default",
    });
    expect(noEnv.pick(layers(undefined, undefined))).toBeUndefined();
  });

  it("an empty variable or YAML value is unset; an empty flag is refused naming the flag", () => {
    const s = settingsFrom({ X: "" });
    expect(s.pick(layers(undefined, "yaml"))).toEqual({ value: "yaml", source: "x.y" });
    expect(s.pick(layers(undefined, ""))).toBeUndefined();
    expect(s.variable("X")).toBeUndefined();
    expect(() => s.pick(layers("", "yaml"))).toThrow(
      "--x is empty; give it a value or leave the flag out",
    );
    expect(() => s.pick({ flag: ["--kb", ["a", ""]] })).toThrow(/^--kb is empty/);
    expect(s.pick({ flag: ["--kb", [] as string[]], env: "X" })).toBeUndefined();
  });

  it("a flag set to false is a value, not an unset flag", () => {
    expect(settingsFrom({}).pick({ flag: ["--init", false], key: ["init", true] })).toEqual({
      value: false,
      source: "--init",
    });
  });
});

/** A config file setting every key that also has a variable, and the folders it names. */
function fullConfig(cwd: string): string {
  for (const dir of ["data", "tokens", "keys"]) mkdirSync(join(cwd, dir));
  writeFileSync(join(cwd, "keys", "all.age"), "");
  writeFileSync(
    join(cwd, "c.yaml"),
    [
      "http: 127.0.0.1:4100",
      "data: data",
      "tools:",
      "  profile: full",
      "public_url: https://kb.example.com",
      "max_connections: 50",
      "headers_timeout_seconds: 7",
      "request_timeout_seconds: 70",
      "index:",
      "  refresh_seconds: 5",
      "git:",
      "  autocommit: true",
      "  sync: false",
      "  in_window: 4",
      "  out_debounce: 2",
      "  poll_seconds: 9",
      "  network_timeout: 11",
      "  token_dir: tokens",
      "search:",
      "  ollama_url: http://127.0.0.1:11434",
      "  ollama_model: mini",
      "sops:",
      "  age_key_dir: keys",
      "  age_key_file: keys/all.age",
      "audit:",
      "  log: audit.log",
      `  key_seed: "${"ab".repeat(32)}"`,
      "auth:",
      "  mode: true",
      "  tokens: [yaml-token-value]",
      "",
    ].join("\n"),
  );
  return "c.yaml";
}

/** Every variable `serve` reads, besides CARTOGRAPHER_CONFIG (tested on its own). */
const VARIABLES = [
  "CARTOGRAPHER_HTTP",
  "CARTOGRAPHER_DATA",
  "CARTOGRAPHER_KB",
  "CARTOGRAPHER_KB_REMOTES",
  "CARTOGRAPHER_TOOLS_PROFILE",
  "CARTOGRAPHER_PUBLIC_URL",
  "CARTOGRAPHER_MAX_CONNECTIONS",
  "CARTOGRAPHER_HEADERS_TIMEOUT_SECONDS",
  "CARTOGRAPHER_REQUEST_TIMEOUT_SECONDS",
  "CARTOGRAPHER_INDEX_REFRESH_SECONDS",
  "CARTOGRAPHER_GIT_AUTOCOMMIT",
  "CARTOGRAPHER_GIT_SYNC",
  "CARTOGRAPHER_SYNC_IN_WINDOW",
  "CARTOGRAPHER_SYNC_OUT_DEBOUNCE",
  "CARTOGRAPHER_GIT_POLL_SECONDS",
  "CARTOGRAPHER_GIT_NETWORK_TIMEOUT",
  "CARTOGRAPHER_GIT_TOKEN_DIR",
  "CARTOGRAPHER_OLLAMA",
  "CARTOGRAPHER_OLLAMA_MODEL",
  "CARTOGRAPHER_SOPS_AGE_KEY_DIR",
  "CARTOGRAPHER_SOPS_AGE_KEY_FILE",
  "CARTOGRAPHER_AUDIT_LOG",
  "CARTOGRAPHER_AUDIT_KEY",
  "CARTOGRAPHER_AUTH",
  "CARTOGRAPHER_TOKENS",
  "CARTOGRAPHER_MCP_MOUNT_MODE",
  "CARTOGRAPHER_MCP_TOOL_PREFIX_MODE",
];

describe("an empty variable is unset, for every key", () => {
  it.each(VARIABLES)("%s= resolves exactly as when it is not set (the YAML key wins)", (name) => {
    const cwd = sandbox();
    const flags = { config: fullConfig(cwd) };
    const unset = resolveServerConfig(flags, {}, cwd);
    expect(resolveServerConfig(flags, { [name]: "" }, cwd)).toEqual(unset);
    expect(buildServerAuth(resolveServerConfig(flags, { [name]: "" }, cwd), {}).compiled).toEqual(
      buildServerAuth(unset, {}).compiled,
    );
  });

  it("CARTOGRAPHER_DATA= is the embedded default, not the working directory", () => {
    const cwd = sandbox();
    const c = resolveServerConfig({}, { CARTOGRAPHER_DATA: "" }, cwd);
    expect(c.embeddedDefault).toBe(true);
    expect(c.dataDir).toBe(join(cwd, "cartographer-data"));
  });

  it("CARTOGRAPHER_CONFIG= reads no file", () => {
    const cwd = sandbox();
    fullConfig(cwd);
    expect(resolveServerConfig({}, { CARTOGRAPHER_CONFIG: "" }, cwd)).toEqual(
      resolveServerConfig({}, {}, cwd),
    );
  });
});

/** Every string flag of `serve`, by its ServeFlags field. */
const FLAGS: ReadonlyArray<readonly [keyof ServeFlags, string]> = [
  ["config", "--config"],
  ["data", "--data"],
  ["http", "--http"],
  ["toolsProfile", "--tools-profile"],
  ["publicUrl", "--public-url"],
  ["maxConnections", "--max-connections"],
  ["auditLog", "--audit-log"],
  ["auth", "--auth"],
  ["tokens", "--tokens"],
  ["ollama", "--ollama"],
  ["gitSync", "--git-sync"],
  ["gitAutocommit", "--git-autocommit"],
];

describe("an empty flag is refused naming the flag, for every key", () => {
  it.each(FLAGS)("%s: ''", (field, flag) => {
    const cwd = sandbox();
    expect(() => resolveServerConfig({ [field]: "" }, {}, cwd)).toThrow(
      `${flag} is empty; give it a value or leave the flag out`,
    );
  });

  it("--kb with an empty entry too", () => {
    expect(() => resolveServerConfig({ kb: ["a", ""] }, {}, sandbox())).toThrow(/^--kb is empty/);
  });
});

describe("a bad value's message names where it was set", () => {
  const yaml = (cwd: string, text: string) => {
    writeFileSync(join(cwd, "c.yaml"), text);
    return { config: "c.yaml" };
  };

  it("data: the flag, the variable or the YAML key", () => {
    const cwd = sandbox();
    expect(() => resolveServerConfig({ data: "nope" }, {}, cwd)).toThrow(/^--data: 'nope'/);
    expect(() => resolveServerConfig({}, { CARTOGRAPHER_DATA: "nope" }, cwd)).toThrow(
      /^CARTOGRAPHER_DATA: 'nope'/,
    );
    expect(() => resolveServerConfig(yaml(cwd, "data: nope\n"), {}, cwd)).toThrow(/^data: 'nope'/);
    // An empty variable is unset: the YAML value is the one in the message.
    expect(() =>
      resolveServerConfig(yaml(cwd, "data: nope\n"), { CARTOGRAPHER_DATA: "" }, cwd),
    ).toThrow(/^data: 'nope'/);
  });

  it("tools profile, http address, public URL and the connection cap", () => {
    const cwd = sandbox();
    expect(() => resolveServerConfig({ toolsProfile: "lots" }, {}, cwd)).toThrow(
      /^--tools-profile: 'lots'/,
    );
    expect(() => resolveServerConfig({}, { CARTOGRAPHER_HTTP: "a:b:c" }, cwd)).toThrow(
      /^CARTOGRAPHER_HTTP: 'a:b:c'/,
    );
    expect(() => resolveServerConfig(yaml(cwd, "http: 'a:b:c'\n"), {}, cwd)).toThrow(
      /^http: 'a:b:c'/,
    );
    expect(() => resolveServerConfig({}, { CARTOGRAPHER_PUBLIC_URL: "nope" }, cwd)).toThrow(
      /^CARTOGRAPHER_PUBLIC_URL: 'nope'/,
    );
    expect(() => resolveServerConfig(yaml(cwd, "public_url: nope\n"), {}, cwd)).toThrow(
      /^public_url: 'nope'/,
    );
    expect(() => resolveServerConfig({}, { CARTOGRAPHER_MAX_CONNECTIONS: "0" }, cwd)).toThrow(
      /^CARTOGRAPHER_MAX_CONNECTIONS: '0'/,
    );
  });

  it("git durations and the Ollama URL", () => {
    const cwd = sandbox();
    expect(() => resolveServerConfig({}, { CARTOGRAPHER_SYNC_IN_WINDOW: "soon" }, cwd)).toThrow(
      /^CARTOGRAPHER_SYNC_IN_WINDOW: 'soon'/,
    );
    expect(() => resolveServerConfig(yaml(cwd, "git:\n  in_window: soon\n"), {}, cwd)).toThrow(
      /^git\.in_window: 'soon'/,
    );
    expect(() => resolveServerConfig({}, { CARTOGRAPHER_OLLAMA: "ftp://x" }, cwd)).toThrow(
      /^CARTOGRAPHER_OLLAMA: 'ftp:\/\/x'/,
    );
    expect(() => resolveServerConfig({ ollama: "ftp://x" }, {}, cwd)).toThrow(
      /^--ollama: 'ftp:\/\/x'/,
    );
    expect(() => resolveServerConfig({ gitAutocommit: "maybe" }, {}, cwd)).toThrow(
      /^--git-autocommit: 'maybe'/,
    );
    expect(() =>
      resolveServerConfig(yaml(cwd, "search:\n  ollama_url: ftp://x\n"), {}, cwd),
    ).toThrow(/^search\.ollama_url: 'ftp:\/\/x'/);
  });

  it("auth mode and tokens: the flag or the variable, never both names", () => {
    const cwd = sandbox();
    const auth = (flags: ServeFlags, env: Record<string, string>) => () =>
      buildServerAuth(resolveServerConfig(flags, env, cwd), env);
    expect(auth({ auth: "sometimes" }, {})).toThrow(/^--auth must be auto, true or false/);
    expect(auth({}, { CARTOGRAPHER_AUTH: "sometimes" })).toThrow(
      /^CARTOGRAPHER_AUTH must be auto, true or false/,
    );
    expect(auth({ tokens: "tok|" }, {})).toThrow(/^--tokens entry 1 has "\|" but no scopes/);
    expect(auth({}, { CARTOGRAPHER_TOKENS: "tok|" })).toThrow(
      /^CARTOGRAPHER_TOKENS entry 1 has "\|" but no scopes/,
    );
  });
});
