/**
 * The file operations the audit sink performs, behind one interface so tests can inject
 * failures and count fsyncs (D119's fault-injection seam). Production code always uses
 * `nodeAuditIo`; the `io` option of openAuditSink is TEST-ONLY.
 */
import { constants } from "node:fs";
import * as fs from "node:fs/promises";
import { writeFileAtomic } from "../common/atomic-write.js";

export interface AuditFile {
  /** Writes `data` at `position`; resolves with the number of bytes written (may be short). */
  write(data: Buffer, position: number): Promise<number>;
  sync(): Promise<void>;
  truncate(length: number): Promise<void>;
  size(): Promise<number>;
  /** Reads `length` bytes at `position` (fewer at end of file). */
  read(length: number, position: number): Promise<Buffer>;
  close(): Promise<void>;
}

export interface AuditIo {
  /** Opens read/write, creating the file with mode 0640 if missing (no O_APPEND: writes are positional). */
  open(file: string): Promise<AuditFile>;
  readFile(file: string): Promise<Buffer>;
  /** Writes via temp file + fsync + rename, so readers see the old or the new content only. */
  writeFileAtomic(file: string, data: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(file: string): Promise<void>;
  mkdir(dir: string): Promise<void>;
  /** Names in `dir`, or [] if it does not exist. */
  readdir(dir: string): Promise<string[]>;
  exists(file: string): Promise<boolean>;
}

const FILE_MODE = 0o640;

export const nodeAuditIo: AuditIo = {
  async open(file) {
    const created = !(await nodeAuditIo.exists(file));
    const fh = await fs.open(file, constants.O_RDWR | constants.O_CREAT, FILE_MODE);
    // The umask may have narrowed or widened the mode; the log's mode is part of its contract.
    if (created) await fh.chmod(FILE_MODE);
    return {
      write: async (data, position) =>
        (await fh.write(data, 0, data.length, position)).bytesWritten,
      sync: () => fh.sync(),
      truncate: (length) => fh.truncate(length),
      size: async () => (await fh.stat()).size,
      read: async (length, position) => {
        const buf = Buffer.alloc(length);
        const { bytesRead } = await fh.read(buf, 0, length, position);
        return buf.subarray(0, bytesRead);
      },
      close: () => fh.close(),
    };
  },
  readFile: (file) => fs.readFile(file),
  // The one atomic-write module; the checkpoint index gets the log's mode exactly.
  writeFileAtomic: (file, data) => writeFileAtomic(file, data, { mode: FILE_MODE }),
  rename: (from, to) => fs.rename(from, to),
  unlink: (file) => fs.unlink(file),
  async mkdir(dir) {
    await fs.mkdir(dir, { recursive: true, mode: 0o750 });
  },
  async readdir(dir) {
    try {
      return await fs.readdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
  },
  async exists(file) {
    try {
      await fs.stat(file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw err;
    }
  },
};
