/**
 * Invariants found missing in review: symlinks never lead a concept read or write outside the
 * KB; moves keep asset links working and leave unrelated files alone; patch keys are checked.
 */
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { useTempDirs } from "../../support/temp-dir.js";
import { commitCount, fails, fixtureKb, gitIn, run, type TempKb } from "../helpers.js";

let kb: TempKb;
beforeEach(async () => {
  kb = await fixtureKb();
});
afterEach(async () => kb.cleanup());

describe("symlinks never lead outside the KB", () => {
  const newDir = useTempDirs("carto-outside-");
  let outside: string;
  beforeEach(async () => {
    outside = newDir();
    await writeFile(join(outside, "secret.md"), "---\ntype: note\n---\nSECRET\n");
  });

  it("a concept read through a symlinked folder or file is refused", async () => {
    await symlink(outside, join(kb.root, "data/infra/evil"));
    await symlink(join(outside, "secret.md"), join(kb.root, "data/infra/leak.md"));
    await fails(kb.store.readConcept("infra/evil/secret"), "invalid_argument", "symlink");
    await fails(kb.store.readConcept("infra/leak"), "invalid_argument", "symlink");
    await fails(kb.store.readText("data/infra/leak.md"), "invalid_argument", "symlink");
  });

  it("a concept write or patch through a symlinked folder is refused and writes nothing", async () => {
    await symlink(outside, join(kb.root, "data/infra/evil"));
    await fails(
      kb.store.planConceptWrite({
        id: "infra/evil/new",
        frontmatter: { type: "note" },
        body: "x",
        mode: "upsert",
      }),
      "invalid_argument",
      "symlink",
    );
    await fails(
      kb.store.planConceptPatch({
        id: "infra/evil/secret",
        edits: [{ old_string: "SECRET", new_string: "PWNED" }],
      }),
      "invalid_argument",
    );
    // Even a plan built by hand is refused at apply time.
    await fails(
      kb.store.apply({
        changes: [{ path: "data/infra/evil/new.md", content: "---\ntype: note\n---\nx\n" }],
        target: "x",
        touchedIds: [],
        result: {},
      }),
      "invalid_argument",
      "symlink",
    );
    expect(await readFile(join(outside, "secret.md"), "utf8")).toContain("SECRET");
    await expect(readFile(join(outside, "new.md"))).rejects.toThrow();
  });

  it("a symlink that stays inside the KB still reads", async () => {
    await symlink(join(kb.root, "data/infra/rete"), join(kb.root, "data/infra/alias"));
    expect((await kb.store.readConcept("infra/alias/gateway")).title).toBe("Network gateway");
  });
});

describe("concept_move", () => {
  it("moves an expanded concept's assets with it and keeps every link to them working", async () => {
    await writeFile(
      join(kb.root, "data/infra/rete/index.md"),
      "---\ntype: Index\ntitle: Network\n---\n# Network\n\n![d](diagram.png) [me](index.md)\n",
    );
    await writeFile(
      join(kb.root, "data/infra/notes.md"),
      "---\ntype: note\n---\n![d](rete/diagram.png) ![abs](/data/infra/rete/diagram.png)\n",
    );
    gitIn(kb.root, ["add", "-A"]);
    gitIn(kb.root, ["commit", "-qm", "links"]);
    const plan = await kb.store.planConceptMove({
      moves: [{ from: "infra/rete", to: "net" }],
      rewriteLinks: true,
    });
    await run(kb.store, plan, "concept_move");
    expect((await kb.store.assets()).map((a) => a.path)).toEqual(["data/net/diagram.png"]);
    expect((await kb.store.readConcept("net")).body).toBe(
      "# Network\n\n![d](diagram.png) [me](index.md)\n",
    );
    expect((await kb.store.readConcept("infra/notes")).body).toBe(
      "![d](../net/diagram.png) ![abs](/data/net/diagram.png)\n",
    );
  });

  it("leaves a file without affected links byte for byte alone (CRLF kept)", async () => {
    const crlf = "---\r\ntype: note\r\n---\r\nno links here\r\n";
    await writeFile(join(kb.root, "data/infra/crlf.md"), crlf);
    gitIn(kb.root, ["add", "-A"]);
    gitIn(kb.root, ["commit", "-qm", "crlf"]);
    const plan = await kb.store.planConceptMove({
      moves: [{ from: "infra/rete/dns", to: "infra/dns" }],
      rewriteLinks: true,
    });
    expect(plan.changes.map((c) => c.path)).not.toContain("data/infra/crlf.md");
    await run(kb.store, plan, "concept_move");
    expect(await readFile(join(kb.root, "data/infra/crlf.md"), "utf8")).toBe(crlf);
  });
});

describe("concept_patch frontmatter keys", () => {
  it("refuses a key that is not a plain YAML key (no line injection)", async () => {
    await fails(
      kb.store.planConceptPatch({ id: "infra/rete/gateway", frontmatter: { "x: y\nz": "v" } }),
      "invalid_frontmatter",
      "key",
    );
    await fails(
      kb.store.planConceptPatch({ id: "infra/rete/gateway", frontmatter: { "a b": "v" } }),
      "invalid_frontmatter",
    );
  });
});

describe("a blank first line after --- (Go fixture) survives every write path", () => {
  it("write replace, patch of frontmatter and move keep it and parse back", async () => {
    const before = commitCount(kb.root);
    const gw = await kb.store.readConcept("infra/rete/gateway");
    await run(
      kb.store,
      await kb.store.planConceptWrite({
        id: gw.id,
        frontmatter: { ...gw.frontmatter, tags: ["net"] },
        body: gw.body,
        mode: "replace",
        ifMatch: gw.hash,
      }),
      "concept_write",
    );
    await run(
      kb.store,
      await kb.store.planConceptPatch({ id: gw.id, frontmatter: { title: "Gateway" } }),
      "concept_patch",
    );
    await run(
      kb.store,
      await kb.store.planConceptMove({
        moves: [{ from: gw.id, to: "infra/gateway" }],
        rewriteLinks: true,
      }),
      "concept_move",
    );
    expect(await kb.store.readText("data/infra/gateway.md")).toBe(
      "---\n\ntype: service\ntitle: Gateway\ntags: [net]\n---\nThe homelab network gateway is **10.10.0.1** (main router).\n",
    );
    expect(commitCount(kb.root)).toBe(before + 3);
    const dns = await kb.store.readConcept("infra/rete/dns");
    expect(dns.title).toBe("Internal DNS");
  });
});

describe("concept_new", () => {
  it("a variable value reads back unchanged in the frontmatter (# and newlines quoted, numbers typed)", async () => {
    await mkdir(join(kb.root, "templates"));
    await writeFile(
      join(kb.root, "templates/svc.md"),
      "---\ntype: service\ntitle: {{ title }}\nsummary: Service {{title}}\nport: {{port}}\n---\n# {{title}}\n",
    );
    for (const title of ["A: b #c", "line\ny: injected", "[not a list]", "plain"]) {
      const id = `infra/s${title.length}`;
      await run(
        kb.store,
        await kb.store.planConceptNew({
          id,
          template: "svc",
          variables: { title, port: "8080" },
        }),
        "concept_new",
      );
      const doc = await kb.store.readConcept(id);
      expect(doc.frontmatter).toEqual({
        type: "service",
        title,
        summary: `Service ${title}`,
        port: 8080,
      });
      expect(doc.body).toBe(`# ${title}\n`);
    }
  });
});

describe("log_append", () => {
  it("reports the time exactly as the entry's ## heading spells it", async () => {
    const plan = await kb.store.planLogAppend({
      scope: "infra",
      entry: "x",
      at: new Date("2024-05-01T10:00:00.123Z"),
    });
    await run(kb.store, plan, "log_append");
    expect(plan.result.at).toBe("2024-05-01T10:00:00Z");
    expect(await kb.store.readText("data/infra/log.md")).toBe(
      "# Log\n\n## 2024-05-01T10:00:00Z\n\nx\n",
    );
  });
});
