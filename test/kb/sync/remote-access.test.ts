/**
 * How git reaches a remote (docs/sync.md "Credentials"): the SSH command pins the key and checks
 * host keys; the HTTPS token is handed to git by a credential helper reading <token_dir>/<kb>.token
 * at run time — real `git credential fill` proves it, and the token is in no argument or variable.
 * (No sshd here: the SSH command's construction is tested, not a real SSH session.)
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  redactRemote,
  remoteAccess,
  sshCommand,
  TOKEN_FILE_VAR,
} from "../../../src/kb/sync/remote-access.js";
import { useTempDirs } from "../../support/temp-dir.js";

const TOKEN = "ghp_CANARY0123456789abcdef";
const newDir = useTempDirs("carto-token-");

/** Real `git credential fill` with `access`; a failure to find one answers its stderr. */
function fill(dir: string, access: ReturnType<typeof remoteAccess>, request: string): string {
  try {
    return execFileSync("git", [...access.args, "credential", "fill"], {
      cwd: dir,
      input: request,
      env: { ...process.env, ...access.env, HOME: dir, GIT_CONFIG_NOSYSTEM: "1" },
      encoding: "utf8",
      stdio: ["pipe", "pipe", "pipe"],
    });
  } catch (err) {
    return String((err as { stderr?: string }).stderr ?? err);
  }
}

describe("remote access", () => {
  it("ssh: only the KB's key, StrictHostKeyChecking=yes, its known_hosts; quoted for the shell", () => {
    expect(sshCommand("/keys/id it's")).toBe(
      "ssh -i '/keys/id it'\\''s' -o IdentitiesOnly=yes -o StrictHostKeyChecking=yes -o BatchMode=yes",
    );
    expect(sshCommand("/k/id", "/k/known")).toMatch(/-o 'UserKnownHostsFile=\/k\/known'$/);
    const access = remoteAccess({ sshKey: "/k/id" });
    expect(access.env.GIT_SSH_COMMAND).toContain("StrictHostKeyChecking=yes");
    expect(access.env.GIT_TERMINAL_PROMPT).toBe("0");
    expect(access.args.join(" ")).not.toContain("credential");
  });

  it("token: real git credential fill answers the file's token; it is in no argv or env value", () => {
    const dir = newDir();
    const file = join(dir, "wiki.token");
    writeFileSync(file, `${TOKEN}\n`);
    const access = remoteAccess({
      tokenFile: file,
      remoteUrl: "https://git.example.com/team/wiki.git",
    });
    expect(JSON.stringify(access)).not.toContain(TOKEN);
    expect(access.env[TOKEN_FILE_VAR]).toBe(file);
    const out = fill(dir, access, "protocol=https\nhost=git.example.com\npath=team/wiki.git\n\n");
    expect(out).toContain(`password=${TOKEN}\n`);
    expect(out).toContain("username=x-access-token\n");
  });

  it("token: the helper answers only the configured remote's protocol and host; inherited helpers are cleared", () => {
    const dir = newDir();
    const file = join(dir, "wiki.token");
    writeFileSync(file, `${TOKEN}\n`);
    // A machine-wide helper for the same host, as a user's `store` would be: never consulted.
    writeFileSync(
      join(dir, ".gitconfig"),
      '[credential "https://git.example.com"]\n\thelper = "!f() { echo password=INHERITED; }; f"\n[credential]\n\thelper = "!f() { echo password=INHERITED; }; f"\n',
    );
    const access = remoteAccess({
      tokenFile: file,
      remoteUrl: "https://git.example.com/team/wiki.git",
    });
    const asked = (request: string) => fill(dir, access, request);
    expect(asked("protocol=https\nhost=git.example.com\n\n")).toContain(`password=${TOKEN}`);
    for (const other of [
      "protocol=https\nhost=evil.example.com\n\n",
      "protocol=http\nhost=git.example.com\n\n",
      "protocol=https\nhost=git.example.com:8443\n\n",
    ]) {
      const out = asked(other);
      expect(out, other).not.toContain(TOKEN);
      expect(out, other).not.toContain("INHERITED");
    }
    expect(asked("protocol=https\nhost=git.example.com\n\n")).not.toContain("INHERITED");
    // No remote URL (or one that is not HTTP): the token is given to no one.
    const unscoped = remoteAccess({
      tokenFile: file,
      remoteUrl: "git@git.example.com:team/wiki.git",
    });
    expect(fill(dir, unscoped, "protocol=https\nhost=git.example.com\n\n")).not.toContain(TOKEN);
  });

  it("git messages lose URL credentials and the remote's own URL or path", () => {
    expect(redactRemote("fatal: https://bot:tok@host/x.git not found")).toBe(
      "fatal: https://***@host/x.git not found",
    );
    expect(redactRemote("fatal: '/srv/r.git' does not appear", "/srv/r.git")).toBe(
      "fatal: '<origin>' does not appear",
    );
  });

  it("ssh's warnings lose the absolute paths of the key and known_hosts files", () => {
    const warning =
      "Add correct host key in /etc/carto/keys/known_hosts to get rid of this message. | Offending ED25519 key in /etc/carto/keys/known_hosts:1";
    const shown = redactRemote(warning, "ssh://git@host/srv/kb.git");
    expect(shown).not.toContain("/etc/carto");
    expect(shown).toContain("…/known_hosts");
    expect(redactRemote("fatal: https://host/x.git not found")).toBe(
      "fatal: https://host/x.git not found",
    );
  });
});
