/**
 * Git objects read and written by this process (docs/decisions.md "A write commits through
 * objects written in process"): what `git add`, `write-tree` and `commit-tree` would store, with
 * no process per object.
 *
 * Writing is git's own scheme: the object is deflated into a fresh `tmp_obj_*` file in its
 * fan-out folder (git gc prunes stale ones), fsynced, then hard-linked to its name — a reader,
 * or a crash at any point, never finds a half-written object under an object's name, and a
 * name that exists already (written by the `git add` running beside, or earlier) is kept and
 * its mtime freshened, as git does, so a concurrent prune does not take it. Reading takes the
 * loose file when there is one and asks `git cat-file` otherwise (packs, alternates).
 */
import { createHash, randomBytes } from "node:crypto";
import { link, mkdir, readFile, unlink, utimes } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { deflate, inflateSync } from "node:zlib";
import { writeSynced } from "../../common/atomic-write.js";
import { KbError } from "../../common/errors.js";
import { gitBytes } from "./git.js";

export type ObjectType = "blob" | "tree" | "commit";

const deflateAsync = promisify(deflate);
/** A `git cat-file` of one object (a packed tree or commit) is killed after this long. */
const READ_TIMEOUT_MS = 30_000;
/** git's zlib level for loose objects (core.looseCompression defaults to best speed). */
const LOOSE_LEVEL = 1;

/** The id git gives `body` as an object of `type` (SHA-1 of "<type> <size>\0<body>"). */
export function objectId(type: ObjectType, body: Uint8Array): string {
  return createHash("sha1").update(`${type} ${body.length}\0`).update(body).digest("hex");
}

/**
 * The objects of one commit, written concurrently: each id is known at once (the next object
 * can name it), the writes and their fsyncs overlap, and `written` settles when all are stored.
 */
export class ObjectBatch {
  readonly #writes: Promise<string>[] = [];

  constructor(private readonly objects: GitObjects) {}

  /** The id of `body` as a `type`; its write is started and awaited by `written`. */
  put(type: ObjectType, body: Uint8Array): string {
    const write = this.objects.write(type, body);
    write.catch(() => undefined); // reported by written()
    this.#writes.push(write);
    return objectId(type, body);
  }

  /** Resolves once every object put is stored; rejects with the first failure. */
  async written(): Promise<void> {
    await Promise.all(this.#writes);
  }
}

export class GitObjects {
  constructor(
    private readonly cwd: string,
    /** `git rev-parse --git-path objects`: honours GIT_OBJECT_DIRECTORY and worktrees. */
    private readonly dir: string,
    private readonly env: Readonly<Record<string, string | undefined>>,
  ) {}

  #path(sha: string): string {
    return join(this.dir, sha.slice(0, 2), sha.slice(2));
  }

  /** Stores `body` as an object of `type` and returns its id; durable once this resolves. */
  async write(type: ObjectType, body: Uint8Array): Promise<string> {
    const sha = objectId(type, body);
    const path = this.#path(sha);
    const now = new Date();
    try {
      await utimes(path, now, now); // there already: freshened, like git
      return sha;
    } catch {
      // not a loose object yet (a packed copy is not looked for: a loose twin is harmless)
    }
    const header = Buffer.from(`${type} ${body.length}\0`);
    const data = await deflateAsync(Buffer.concat([header, body]), { level: LOOSE_LEVEL });
    const folder = join(this.dir, sha.slice(0, 2));
    await mkdir(folder, { recursive: true });
    const temp = join(folder, `tmp_obj_${randomBytes(6).toString("hex")}`);
    await writeSynced(temp, data, 0o444);
    try {
      await link(temp, path);
    } catch (e) {
      // Written meanwhile (the git add beside us stores the same blob): the same bytes.
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    } finally {
      await unlink(temp).catch(() => undefined);
    }
    return sha;
  }

  /** The body of object `sha`, which must be a `type`. */
  async read(sha: string, type: ObjectType): Promise<Buffer> {
    let raw: Buffer;
    try {
      raw = await readFile(this.#path(sha));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      return gitBytes(this.cwd, ["cat-file", type, sha], this.env, READ_TIMEOUT_MS);
    }
    const object = inflateSync(raw);
    const nul = object.indexOf(0);
    const header = object.subarray(0, nul).toString("latin1");
    const body = object.subarray(nul + 1);
    if (nul < 0 || header !== `${type} ${body.length}`) {
      throw new KbError("git_failed", `object ${sha} is not a well-formed ${type}`);
    }
    return body;
  }
}
