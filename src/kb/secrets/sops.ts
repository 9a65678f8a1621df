/**
 * The shell around the `sops` binary (execFile, no shell), run from the KB root so that the
 * repository's `.sops.yaml` rules apply as they do for an operator. The age key reaches the
 * child as SOPS_AGE_KEY_FILE in the child's environment only. sops's own output on stderr is
 * never forwarded (it can quote decrypted material): a failure is reported by exit code only.
 * Values travel on stdin (secret_set), never in argv, where `ps` would show them.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { rm, stat, writeFile } from "node:fs/promises";
import { posix } from "node:path";
import { KbError } from "../../common/errors.js";
import { resolveInside } from "../../common/paths.js";
import {
  flattenSecrets,
  hasSopsMetadata,
  isEncryptedAt,
  sopsSelector,
} from "../core/secret-refs.js";
import type { SopsSettings } from "../core/types.js";
import { readBytesOrNull, refuseWrongKinds } from "../store/fsutil.js";

/** A sops call that takes longer than this is killed (a hung child must not hold a call). */
const SOPS_TIMEOUT_MS = 30_000;

/**
 * The SOPS settings of a KB, or `not_configured` naming the key to set. `kb` is the mount name.
 */
export function requireSops(sops: SopsSettings | undefined, kb: string): SopsSettings {
  if (sops) return sops;
  throw new KbError(
    "not_configured",
    `secrets are not configured for KB ${kb}: set kbs[].sops_age_key_file to an age key file that can decrypt its secrets/*.sops.yaml, and install the sops binary on the server`,
  );
}

function runSops(
  sops: SopsSettings,
  cwd: string,
  args: string[],
  stdin?: string,
): Promise<{ stdout: string; code: number }> {
  const binary = sops.binary ?? "sops";
  return new Promise((resolvePromise, reject) => {
    const child = execFile(
      binary,
      args,
      {
        cwd,
        env: { ...sops.env, SOPS_AGE_KEY_FILE: sops.ageKeyFile },
        encoding: "utf8",
        maxBuffer: 16 * 1024 * 1024,
        timeout: SOPS_TIMEOUT_MS,
      },
      (error, stdout) => {
        const spawnCode = error ? (error as NodeJS.ErrnoException).code : undefined;
        if (spawnCode === "ENOENT") {
          reject(
            new KbError(
              "not_configured",
              `the ${binary} binary is not on the server's PATH: install sops to use the secret tools`,
            ),
          );
          return;
        }
        if (typeof spawnCode === "string") {
          reject(new KbError("internal", `cannot run ${binary}: ${spawnCode}`));
          return;
        }
        if (error?.killed) {
          reject(
            new KbError("internal", `${binary} did not finish within ${SOPS_TIMEOUT_MS / 1000} s`),
          );
          return;
        }
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolvePromise({ stdout, code });
      },
    );
    child.stdin?.on("error", () => {});
    child.stdin?.end(stdin ?? "");
  });
}

async function readEncrypted(root: string, file: string): Promise<string> {
  await refuseWrongKinds(root, file);
  const bytes = await readBytesOrNull(root, file);
  if (bytes === null) {
    throw new KbError(
      "not_found",
      `no encrypted file ${file}: creating it and choosing its recipients is an operator action (sops --encrypt)`,
    );
  }
  return bytes.toString("utf8");
}

/**
 * Decrypts `file` (KB-root-relative, already checked by secretsPath) and returns its leaves by
 * JSON Pointer. `not_found` when missing; `not_configured` when sops is missing or cannot
 * decrypt with the configured key.
 */
export async function decryptSecrets(
  sops: SopsSettings,
  root: string,
  file: string,
): Promise<Map<string, string>> {
  await readEncrypted(root, file);
  const r = await runSops(sops, root, ["--decrypt", "--output-type", "yaml", file]);
  if (r.code !== 0) {
    throw new KbError(
      "not_configured",
      `sops could not decrypt ${file} (exit ${r.code}): check that kbs[].sops_age_key_file holds an age key among the file's recipients`,
    );
  }
  return flattenSecrets(r.stdout, `decrypted ${file}`);
}

/**
 * The bytes of `file` with `pointer` set to `value`, still encrypted: `sops set` runs on a
 * hidden copy beside the file (same folder, so the creation rules match alike) and the result
 * is checked to hold ciphertext at `pointer` before it is returned. Writes nothing else; the
 * caller applies the bytes through the store's plan (one atomic write, one commit).
 */
export async function encryptedWithValue(
  sops: SopsSettings,
  root: string,
  file: string,
  pointer: string,
  value: string,
): Promise<Uint8Array> {
  const encrypted = await readEncrypted(root, file);
  if (!hasSopsMetadata(encrypted, file)) {
    throw new KbError(
      "invalid_argument",
      `${file} is not a sops-encrypted file (no sops metadata): encrypt it with sops first`,
    );
  }
  const selector = sopsSelector(encrypted, pointer, file);
  const copy = posix.join(posix.dirname(file), `.set-${randomUUID()}.sops.yaml`);
  const copyAbs = resolveInside(root, copy);
  const mode = (await stat(resolveInside(root, file))).mode & 0o777;
  try {
    await writeFile(copyAbs, encrypted, { flag: "wx", mode });
    const r = await runSops(
      sops,
      root,
      ["set", "--value-stdin", copy, selector],
      JSON.stringify(value),
    );
    if (r.code !== 0) {
      throw new KbError(
        "not_configured",
        `sops set on ${file} failed (exit ${r.code}): check the age key (kbs[].sops_age_key_file) and that the sops version supports set --value-stdin`,
      );
    }
    const updated = await readBytesOrNull(root, copy);
    // sops re-encrypts a set value with a fresh IV: identical bytes mean it did nothing.
    const text = updated?.toString("utf8") ?? encrypted;
    if (updated === null || text === encrypted) {
      throw new KbError(
        "internal",
        `sops set reported success but left ${file} unchanged: nothing written`,
      );
    }
    if (!isEncryptedAt(text, pointer, file)) {
      throw new KbError(
        "internal",
        `sops set left ${file} without ciphertext at the key: nothing written`,
      );
    }
    return updated;
  } finally {
    await rm(copyAbs, { force: true });
  }
}
