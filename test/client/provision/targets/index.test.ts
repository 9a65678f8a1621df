import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROVIDER_IDS } from "../../../../src/client/config.js";
import {
  PROVIDERS as PROVISION_TARGETS,
  provisionTargetFor,
} from "../../../../src/client/provision/targets/index.js";
import type { RenderResult } from "../../../../src/client/provision/types.js";
import { inside } from "./apply.js";
import { artifact, context, fullSet } from "./artifacts.js";

const comparable = (r: RenderResult) => ({
  roots: r.roots,
  files: r.files.map((f) => [f.path, f.bytes.toString("base64"), f.executable, f.origin]),
  sections: r.sections.map((s) => [s.file, s.id, s.desired, s.origins]),
  notes: r.notes,
});

describe("provision targets registry", () => {
  const saved = process.env.CODEX_HOME;
  afterEach(() => {
    if (saved === undefined) delete process.env.CODEX_HOME;
    else process.env.CODEX_HOME = saved;
  });

  it("has one target per provider, under its own id", () => {
    expect(Object.keys(PROVISION_TARGETS).sort()).toEqual([...PROVIDER_IDS].sort());
    for (const id of PROVIDER_IDS) expect(provisionTargetFor(id).id).toBe(id);
  });

  it.each(
    PROVIDER_IDS.flatMap((id) =>
      (["user", "project"] as const).map((scope) => [id, scope] as const),
    ),
  )(
    "%s (%s): pure and deterministic, every file and section inside a root, no path twice, nothing on disk",
    (id, scope) => {
      const home = "/nonexistent/carto-home";
      const ctx = context(scope, home, "/nonexistent/carto-proj", { bootstrapHook: true });
      const a = provisionTargetFor(id).render(fullSet(), ctx);
      const b = provisionTargetFor(id).render([...fullSet()].reverse(), ctx);
      expect(comparable(b)).toEqual(comparable(a));
      for (const f of a.files) expect(inside(f.path, a.roots), f.path).toBe(true);
      for (const s of a.sections) expect(inside(s.file, a.roots), s.file).toBe(true);
      expect(new Set(a.files.map((f) => f.path)).size).toBe(a.files.length);
      expect(new Set(a.sections.map((s) => `${s.file}\0${s.id}`)).size).toBe(a.sections.length);
      for (const f of a.files) {
        const exec = f.executable;
        if (exec) expect(f.origin).toMatch(/\/(skill|hook)\//);
      }
      expect(existsSync(home)).toBe(false);
    },
  );

  it.each(PROVIDER_IDS)(
    "%s drops every unsafe artifact with a note and writes nothing of it",
    (id) => {
      const unsafe = [
        artifact("skill", "../up", { "SKILL.md": "---\nname: x\n---\n" }),
        artifact("skill", "hidden", { "SKILL.md": "---\nname: x\n---\n", ".git/config": "x" }),
        artifact("skill", "abs", { "SKILL.md": "---\nname: x\n---\n", "/etc/x": "x" }),
        artifact("skill", "dots", { "SKILL.md": "---\nname: x\n---\n", "a/../../b": "x" }),
        artifact("hook", "dots2", { "hook.json": '{"event":"Stop","command":"../../bin/sh"}' }),
        artifact("agent", "badfm", { "badfm.md": "---\n: [\n---\n" }),
      ];
      const home = "/nonexistent/carto-home";
      const result = provisionTargetFor(id).render(unsafe, context("user", home, home));
      expect(result.files).toEqual([]);
      expect(result.sections.every((s) => s.desired === null)).toBe(true);
      for (const a of unsafe) {
        // Kiro and Antigravity take no hooks at all: their note names the hook too.
        expect(
          result.notes.some(
            (n) => n.includes(`homelab/${a.kind}/${a.name}`) && n.includes("not written"),
          ),
          a.name,
        ).toBe(true);
      }
    },
  );

  it("takes the environment from the context only (CODEX_HOME)", () => {
    process.env.CODEX_HOME = "/from/process/env";
    const home = "/nonexistent/carto-home";
    const plain = provisionTargetFor("codex").render(fullSet(), context("user", home, home));
    expect(plain.roots).toEqual([join(home, ".codex"), join(home, ".agents", "skills")]);
    const withEnv = provisionTargetFor("codex").render(
      fullSet(),
      context("user", home, home, { env: { CODEX_HOME: "/ctx/codex" } }),
    );
    expect(withEnv.roots[0]).toBe("/ctx/codex");
  });
});
