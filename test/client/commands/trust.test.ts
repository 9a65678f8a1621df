/**
 * The offline halves of `trust` and `revoke` (no server needed) and the approval helpers: the
 * yaml is parsed back after each command, and what the user wrote there (other keys, comments)
 * survives.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { approve, type CommandIo, revoke, trust } from "../../../src/client/commands.js";
import {
  approvalState,
  withApproval,
  withoutApproval,
} from "../../../src/client/provision/approvals.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { KEY_ID, PUBLIC_KEY } from "../provision/wire.js";

const tmp = useTempDirs("carto-trust-cmd-");
const H1 = "1".repeat(64);
const H2 = "2".repeat(64);

function sandbox(yaml?: string) {
  const home = tmp();
  if (yaml !== undefined) writeFileSync(join(home, ".cartographer.yaml"), yaml);
  const out = { stdout: "", stderr: "" };
  const io: CommandIo = {
    home,
    cwd: home,
    env: {},
    stdout: { write: (c: string) => (out.stdout += c) },
    stderr: { write: (c: string) => (out.stderr += c) },
  };
  const text = () => readFileSync(join(home, ".cartographer.yaml"), "utf8");
  return { io, out, text, yaml: () => parse(text()) as Record<string, unknown> };
}

const YAML = `# my client settings
server_url: http://127.0.0.1:9   # the lab server
providers: []
my_note: keep me
approvals:
  - { kb: lab, name: files, content_hash: "${H1}" }
  - { kb: lab, name: grafana, content_hash: "${H2}" }
`;

describe("revoke", () => {
  it("removes one approval and keeps the rest of the file", async () => {
    const s = sandbox(YAML);
    expect(await revoke(s.io, { kb: "lab", name: "files" })).toBe(0);
    expect(s.out.stdout).toMatch(
      /^revoked: MCP server files of KB lab; the next cartographer sync removes it/,
    );
    expect(s.yaml().approvals).toEqual([{ kb: "lab", name: "grafana", content_hash: H2 }]);
    expect(s.yaml().my_note).toBe("keep me");
    expect(s.text()).toContain("# my client settings");
  });

  it("revoking what is not approved is not an error; JSON says which", async () => {
    const s = sandbox(YAML);
    expect(await revoke(s.io, { kb: "lab", name: "nope", json: true })).toBe(0);
    expect(JSON.parse(s.out.stdout)).toEqual({ state: "not-approved", kb: "lab", name: "nope" });
    expect(s.text()).toBe(YAML);
  });

  it("without a yaml: exit 2", async () => {
    const s = sandbox();
    expect(await revoke(s.io, { kb: "lab", name: "files" })).toBe(2);
    expect(s.out.stderr).toMatch(/does not exist; nothing is approved/);
  });
});

describe("trust", () => {
  it("adds, keeps once, and revokes a KB in the trust list", async () => {
    const s = sandbox(YAML);
    expect(await trust(s.io, { kb: "lab" })).toBe(0);
    expect(s.yaml().trust).toEqual(["lab"]);
    expect(await trust(s.io, { kb: "lab", json: true })).toBe(0);
    expect(s.out.stdout.trim().split("\n").pop()).toBe('{"state":"already-trusted","kb":"lab"}');
    expect(s.yaml().trust).toEqual(["lab"]);
    expect(await trust(s.io, { kb: "lab", revoke: true })).toBe(0);
    expect(s.yaml().trust).toBeUndefined();
    expect(s.yaml().approvals).toHaveLength(2);
    expect(s.text()).toContain("# the lab server");
  });

  it("warns about a KB the server did not mount at the last connect", async () => {
    const s = sandbox(`${YAML}server_kbs: [notes]\n`);
    expect(await trust(s.io, { kb: "lba" })).toBe(0);
    expect(s.out.stderr).toMatch(
      /the server mounted no KB "lba" at the last connect \(notes\); trusted anyway/,
    );
  });

  it("without a KB lists trusted KBs, pinned keys with their key id, and approvals", async () => {
    const s = sandbox(`${YAML}trust: [notes]\nsigning_keys:\n  lab: [${PUBLIC_KEY}]\n`);
    expect(await trust(s.io, {})).toBe(0);
    expect(s.out.stdout).toContain("trusted (unsigned artifacts accepted): notes\n");
    expect(s.out.stdout).toContain(`pinned for lab: key id ${KEY_ID} (public key ${PUBLIC_KEY})\n`);
    expect(s.out.stdout).toContain(
      "approved MCP server grafana of KB lab (content hash 222222222222…)\n",
    );
    const j = sandbox(`${YAML}signing_keys:\n  lab: [${PUBLIC_KEY}]\n`);
    await trust(j.io, { json: true });
    expect(JSON.parse(j.out.stdout)).toEqual({
      trust: [],
      signing_keys: [{ kb: "lab", keys: [{ key_id: KEY_ID, public_key: PUBLIC_KEY }] }],
      approvals: [
        { kb: "lab", name: "files", content_hash: H1 },
        { kb: "lab", name: "grafana", content_hash: H2 },
      ],
    });
  });

  it("revoking an untrusted KB writes nothing (no yaml is created)", async () => {
    const s = sandbox();
    expect(await trust(s.io, { kb: "lab", revoke: true })).toBe(0);
    expect(s.out.stdout).toBe("KB lab was not trusted; nothing to revoke\n");
    expect(() => s.text()).toThrow();
  });

  it("--revoke with --pin-key-from-server is refused", async () => {
    const s = sandbox(YAML);
    expect(await trust(s.io, { kb: "lab", revoke: true, pinKeyFromServer: true })).toBe(2);
    expect(s.out.stderr).toMatch(/do not go together/);
  });
});

describe("approve without a server", () => {
  it("no yaml: exit 2 naming connect; unreachable server: exit 2, nothing saved", async () => {
    const none = sandbox();
    expect(await approve(none.io, { kb: "lab", name: "files" })).toBe(2);
    expect(none.out.stderr).toMatch(/run cartographer connect first/);
    const down = sandbox(YAML);
    expect(await approve(down.io, { kb: "lab", name: "x", json: true })).toBe(2);
    expect(JSON.parse(down.out.stdout).error.kind).toBe("unreachable");
    expect(down.text()).toBe(YAML);
  });
});

describe("approval helpers", () => {
  const a = { kb: "lab", name: "files", contentHash: H1 };
  it("an approval is bound to KB, name and content hash; re-approving replaces the old hash", () => {
    expect(approvalState(undefined, a)).toBe("missing");
    expect(approvalState([{ kb: "lab", name: "files", content_hash: H2 }], a)).toBe("changed");
    expect(approvalState([{ kb: "other", name: "files", content_hash: H1 }], a)).toBe("missing");
    const base = {
      server_url: "u",
      server_name: "c",
      providers: [],
      approvals: [{ kb: "lab", name: "files", content_hash: H2 }],
    };
    const next = withApproval(base, "lab", "files", H1);
    expect(next.approvals).toEqual([{ kb: "lab", name: "files", content_hash: H1 }]);
    expect(approvalState(next.approvals, a)).toBe("approved");
    expect(withoutApproval(next, "lab", "files")).toMatchObject({
      removed: true,
      config: { approvals: [] },
    });
  });
});
