/**
 * The audit page over HTTP: the chain verified, then shown broken once a line of the log is
 * edited; recent calls with an attempt without completion highlighted; a narrow viewer sees only
 * calls on concepts it sees and no chain counts; a server without an audit log says so.
 */
import { appendFile, readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { GOV_ADMIN_TOKEN, type GovServer, govServer, HIDDEN, onGovServer } from "./gov-server.js";

let s: GovServer;
let admin: string;
let narrow: string;
onGovServer((g) => {
  ({ s, admin, narrow } = g);
});

const page = (path: string, cookie: string) => s.get(path, { Cookie: cookie });

/** Reloads until the background verify has answered (it runs after the page asks). */
async function settled(path: string, cookie: string) {
  for (let i = 0; i < 50; i++) {
    const r = await page(path, cookie);
    if (!r.body.includes("Verification is running") && !r.body.includes("a newer check is running"))
      return r;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error("verification never finished");
}

describe("audit page", () => {
  it("shows the chain verified and the KB's recent calls", async () => {
    const r = await settled("/console/main/audit", admin);
    expect(r.status).toBe(200);
    expect(r.body).toContain("Chain verified");
    expect(r.body).toContain("<dt>Attempts / completions</dt>");
    expect(r.body).toContain("concept_batch");
    expect(r.body).toContain("id=beta/secret-x");
  });

  it("shows a narrow viewer only calls on concepts it sees, and no counts", async () => {
    const r = await settled("/console/main/audit", narrow);
    expect(r.body).toContain("Chain verified");
    expect(r.body).not.toContain("<dt>Attempts / completions</dt>");
    expect(r.body).toContain("id=alpha/public");
    for (const word of HIDDEN) expect(r.body, word).not.toContain(word);
  });

  it("highlights an attempt without completion, and shows a tampered chain broken", async () => {
    const attempt = {
      phase: "attempt",
      request_id: "11111111-2222-4333-8444-555555555555",
      kb: "main",
      principal_id: "local-admin",
      transport: "http",
      tool: "concept_read",
      read_only: true,
      resources: { id: "alpha/public" },
      timestamp: new Date().toISOString(),
    };
    // Not chained: verify reports it; the page still lists it as an open attempt.
    await appendFile(s.auditLog, `${JSON.stringify(attempt)}\n`);
    const open = await settled("/console/main/audit?incomplete=1", admin);
    expect(open.body).toContain('class="incomplete"');
    expect(open.body).toContain("no completion");
    expect(open.body).toContain("Chain broken");
    const text = await readFile(s.auditLog, "utf8");
    await writeFile(s.auditLog, text.replace(`${JSON.stringify(attempt)}\n`, ""));
    expect((await settled("/console/main/audit", admin)).body).toContain("Chain verified");
    await writeFile(
      s.auditLog,
      text
        .replace('"tool":"map_create"', '"tool":"map_delete"')
        .replace(`${JSON.stringify(attempt)}\n`, ""),
    );
    const broken = await settled("/console/main/audit", admin);
    expect(broken.body).toContain("Chain broken");
    expect(broken.body).toContain("hash mismatch");
    expect(broken.body).not.toContain(s.auditLog);
  });

  it("says so when the server keeps no audit log", async () => {
    const plain = await govServer({ audit: false });
    try {
      const cookie = await plain.cookie(GOV_ADMIN_TOKEN);
      const r = await plain.get("/console/main/audit", { Cookie: cookie });
      expect(r.status).toBe(200);
      expect(r.body).toContain("Audit is disabled on this server");
    } finally {
      await plain.close();
    }
  });
});
