/**
 * The server every Go scenario starts: `cartographer serve` in the scenario's sandbox with auth
 * off, as Go's e2e harness runs its binary; stopped and the sandbox removed after the file.
 */
import { cleanEnv, type RunningServer, startServer, type tempDir } from "../helpers.js";

type Sandbox = ReturnType<typeof tempDir>;

export function startScenarioServer(sandbox: Sandbox, args: string[]): Promise<RunningServer> {
  return startServer(args, { cwd: sandbox.dir, env: cleanEnv({ CARTOGRAPHER_AUTH: "false" }) });
}

export async function stopScenario(
  server: RunningServer | undefined,
  sandbox: Sandbox,
): Promise<void> {
  await server?.stop();
  sandbox.cleanup();
}
