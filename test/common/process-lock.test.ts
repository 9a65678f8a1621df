import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isKbError } from "../../src/common/errors.js";
import { acquireProcessLock, type HeldLock } from "../../src/common/process-lock.js";
import { memoryLogger } from "../../src/logger.js";
import { useTempDirs } from "../support/temp-dir.js";

// Registered first: its hook runs after the one below, once children and locks are gone.
const newDir = useTempDirs("carto-plock-");
const children: ChildProcess[] = [];
const held: HeldLock[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
  for (const l of held.splice(0)) await l.release();
});

async function lockFile(): Promise<string> {
  const dir = newDir();
  return join(dir, ".cartographer", "kb.lock");
}

/** Spawns the holder child; resolves with its first line (`held` or `refused: …`). */
function holder(file: string, purpose = "serve"): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(import.meta.dirname, "lock-holder.ts"), file, purpose],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve({ child, line: out.trim() });
    });
    child.once("exit", (code) => {
      if (!out.includes("\n")) reject(new Error(`holder exited with ${code} before a line`));
    });
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((r) => child.once("exit", (code) => r(code)));
}

async function take(file: string, logger = memoryLogger()): Promise<HeldLock> {
  const lock = await acquireProcessLock(file, {
    label: "KB 'notes'",
    purpose: "serve",
    displayPath: ".cartographer/kb.lock in KB 'notes'",
    logger,
  });
  held.push(lock);
  return lock;
}

async function refusal(file: string): Promise<string> {
  try {
    await take(file);
  } catch (err) {
    expect(isKbError(err, "locked")).toBe(true);
    return (err as Error).message;
  }
  throw new Error("the lock was taken but should have been refused");
}

describe("process lock (one process per KB)", () => {
  it("a second process is refused with the holder named (pid, host, purpose), no absolute path", async () => {
    const file = await lockFile();
    const first = await holder(file, "serve");
    expect(first.line).toBe("held");
    const second = await holder(file, "reindex");
    expect(second.line).toMatch(
      new RegExp(
        `^refused: KB 'child' is in use by another cartographer process: pid ${first.child.pid} on host ${hostname()} \\(serve since \\d{4}-`,
      ),
    );
    expect(await exited(second.child)).toBe(3);
    expect(second.line).not.toContain(tmpdir());
    const message = await refusal(file);
    expect(message).toContain(`pid ${first.child.pid}`);
    expect(message).not.toContain(tmpdir());
  });

  it("SIGTERM releases the lock (file gone); the next process takes it without a warning", async () => {
    const file = await lockFile();
    const first = await holder(file);
    first.child.kill("SIGTERM");
    expect(await exited(first.child)).toBe(0);
    expect(existsSync(file)).toBe(false);
    const logger = memoryLogger();
    await take(file, logger);
    expect(logger.lines).toEqual([]);
  });

  it("after SIGKILL of the holder the next process takes over, with a warning naming the dead pid", async () => {
    const file = await lockFile();
    const first = await holder(file);
    first.child.kill("SIGKILL");
    await exited(first.child);
    expect(existsSync(file)).toBe(true); // SIGKILL ran no cleanup
    const second = await holder(file);
    expect(second.line).toBe("held");
    const logger = memoryLogger();
    second.child.kill("SIGKILL");
    await exited(second.child);
    const lock = await take(file, logger);
    expect(lock.holder.pid).toBe(process.pid);
    expect(logger.lines.join("\n")).toMatch(
      new RegExp(`took over the lock of pid ${second.child.pid} .*no longer running`),
    );
    expect(JSON.parse(await readFile(file, "utf8")).nonce).toBe(lock.holder.nonce);
  });

  it("several processes racing to take over one stale lock: exactly one gets it", async () => {
    const file = await lockFile();
    const dead = await holder(file);
    dead.child.kill("SIGKILL");
    await exited(dead.child);
    const racers = await Promise.all([1, 2, 3, 4].map(() => holder(file)));
    const lines = racers.map((r) => r.line);
    expect(lines.filter((l) => l === "held")).toHaveLength(1);
    const winner = racers.find((r) => r.line === "held")?.child.pid;
    for (const l of lines.filter((x) => x !== "held")) expect(l).toContain(`pid ${winner} `);
    expect(JSON.parse(await readFile(file, "utf8")).pid).toBe(winner);
  });

  it("a lock from another host is never taken over: refused, naming that host and the file to delete", async () => {
    const file = await lockFile();
    await take(file).then((l) => l.release());
    const foreign = {
      pid: 1,
      host: "other-host.example",
      purpose: "serve",
      acquired_at: "2026-01-01T00:00:00.000Z",
      nonce: "abc",
    };
    await writeFile(file, JSON.stringify(foreign));
    const message = await refusal(file);
    expect(message).toContain("pid 1 on host other-host.example");
    expect(message).toContain("never taken over");
    expect(message).toContain("delete .cartographer/kb.lock in KB 'notes'");
    expect(JSON.parse(await readFile(file, "utf8")).host).toBe("other-host.example");
  });

  it("a lock naming this pid from an earlier life (container restart) and a reused pid are stale", async () => {
    const file = await lockFile();
    await take(file).then((l) => l.release());
    const base = { host: hostname(), purpose: "serve", acquired_at: "2026-01-01T00:00:00.000Z" };
    await writeFile(file, JSON.stringify({ ...base, pid: process.pid, nonce: "earlier" }));
    const logger = memoryLogger();
    const lock = await take(file, logger);
    expect(logger.lines.join("\n")).toContain("an earlier run with this process's pid");
    await lock.release();
    if (!existsSync("/proc/self/stat")) return; // pid start times are Linux-only
    // The parent of this worker is alive, but it is not the process that wrote this lock.
    await writeFile(
      file,
      JSON.stringify({ ...base, pid: process.ppid, pid_start: "1", nonce: "reused" }),
    );
    const logger2 = memoryLogger();
    await take(file, logger2);
    expect(logger2.lines.join("\n")).toContain("now belongs to another process");
  });

  it("the same process cannot take a lock it holds; an unreadable lock file is refused, not deleted", async () => {
    const file = await lockFile();
    const both = await Promise.allSettled([take(file), take(file)]);
    expect(both.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    await held.splice(0).at(0)?.release();
    const lock = await take(file);
    expect(await refusal(file)).toContain("this process already holds it");
    await lock.release();
    expect(existsSync(file)).toBe(false);
    await writeFile(file, "not json");
    expect(await refusal(file)).toContain("unreadable lock file");
    expect(await readFile(file, "utf8")).toBe("not json");
  });

  it("release never removes a lock that another process has taken over since", async () => {
    const file = await lockFile();
    const lock = await take(file);
    const other = {
      pid: 1,
      host: "other-host.example",
      purpose: "serve",
      acquired_at: "x",
      nonce: "theirs",
    };
    await writeFile(file, JSON.stringify(other));
    await lock.release();
    expect(JSON.parse(await readFile(file, "utf8")).nonce).toBe("theirs");
  });
});
