/**
 * After a failed `connect` to a loopback URL where nothing answers: offer to run the server as
 * a user service (at a terminal, a y/N question; otherwise one hint line on stderr), as the Go
 * client does for a first install.
 */
import { homedir } from "node:os";
import { resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { DEFAULT_SERVER_URL, defaultConfigPath, loadConfig } from "../../client/config.js";
import { ServerUnreachableError } from "../../client/errors.js";
import { baseUrlOf, fetchHealth } from "../../client/health.js";
import { isLoopbackHost } from "../config/values.js";
import type { CliIo } from "../io.js";
import { serviceCommand } from "./service.js";

/** The client yaml `connect` read: --config, else ~/.cartographer.yaml (client/lib/io.ts). */
const savedConfigFile = (io: CliIo, config?: string) =>
  config ? resolve(io.cwd, config) : defaultConfigPath(io.env.HOME ?? homedir());

/** The loopback host:port nothing answers at, or null (another host, or a server answers). */
async function silentLoopback(io: CliIo, opts: { config?: string; serverUrl?: string }) {
  const saved = opts.serverUrl
    ? undefined
    : (await loadConfig(savedConfigFile(io, opts.config)).catch(() => null))?.config.server_url;
  let url: URL;
  try {
    url = new URL(baseUrlOf(opts.serverUrl ?? saved ?? DEFAULT_SERVER_URL));
  } catch {
    return null;
  }
  if (url.protocol !== "http:" || !isLoopbackHost(url.hostname)) return null;
  const answered = await fetchHealth(url.origin, fetch, 2000).then(
    () => true,
    (err: unknown) => !(err instanceof ServerUnreachableError),
  );
  return answered ? null : `${url.hostname}:${url.port || "80"}`;
}

export async function offerService(
  io: CliIo,
  opts: { config?: string; serverUrl?: string },
): Promise<void> {
  const http = await silentLoopback(io, opts);
  if (http === null) return;
  const install = `cartographer service install --http ${http}`;
  const interactive = io.stdout.isTTY === true && (io.stdin as { isTTY?: boolean }).isTTY === true;
  if (!interactive) {
    io.stderr.write(
      `hint: nothing answers at http://${http}; run the server as a user service with: ${install} (or start it with cartographer serve)\n`,
    );
    return;
  }
  const rl = createInterface({ input: io.stdin, output: io.stderr });
  const answer = await rl
    .question(
      `Nothing answers at http://${http}. Install and start the server as a user service (${install})? [y/N] `,
    )
    .finally(() => rl.close());
  if (!/^y(es)?$/i.test(answer.trim())) return;
  if ((await serviceCommand(io, "install", { http })) === 0)
    io.stderr.write("the service is starting: run the same cartographer connect again\n");
}
